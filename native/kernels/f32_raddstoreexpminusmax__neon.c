/* f32_raddstoreexpminusmax__neon.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), NEON, eight values a
 * step in two sums; a last n % 4 values through a block on the stack, its unused lanes kept out of the sum. */
#include "f32_vexp__neon.h"

static inline float32x4_t exp_of(float32x4_t x, float32x4_t vmax, float32x4_t vbeta) {
    return rl_neon_expminus(vmulq_f32(vsubq_f32(x, vmax), vbeta));
}

float f32_raddstoreexpminusmax__neon(size_t n, const float *x, float max, float beta, float *y) {
    const float32x4_t vmax = vdupq_n_f32(max), vbeta = vdupq_n_f32(beta);
    float32x4_t sum0 = vdupq_n_f32(0.0f), sum1 = sum0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float32x4_t e0 = exp_of(vld1q_f32(x + i), vmax, vbeta), e1 = exp_of(vld1q_f32(x + i + 4), vmax, vbeta);
        vst1q_f32(y + i, e0);
        vst1q_f32(y + i + 4, e1);
        sum0 = vaddq_f32(sum0, e0);
        sum1 = vaddq_f32(sum1, e1);
    }
    for (; i + 4 <= n; i += 4) {
        const float32x4_t e = exp_of(vld1q_f32(x + i), vmax, vbeta);
        vst1q_f32(y + i, e);
        sum0 = vaddq_f32(sum0, e);
    }
    float lanes[4];
    vst1q_f32(lanes, vaddq_f32(sum0, sum1));
    float sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
    if (i < n) {
        const float32x4_t e = exp_of(rl_neon_load_tail(x + i, n - i), vmax, vbeta);
        rl_neon_store_tail(y + i, e, n - i);
        vst1q_f32(lanes, e);
        for (size_t l = 0; l < n - i; ++l) sum += lanes[l];
    }
    return sum;
}
