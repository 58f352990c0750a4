/* f32_avgpool__neon.c — f32_avgpool__scalar 4 channels a step, then the last 1-3 one at a time (aarch64
 * and armv7): the same nine-tap tree per group, the same adds to the total and the same multiply by
 * `scale` (pool.h), so the results are the scalar kernel's bits. */
#include <arm_neon.h>

#include "pool.h"

static float32x4_t clamp4(float32x4_t v, float32x4_t lo, float32x4_t hi) {
    v = vbslq_f32(vcltq_f32(v, lo), lo, v);
    return vbslq_f32(vcgtq_f32(v, hi), hi, v);
}

void f32_avgpool__neon(size_t channels, size_t taps, const float *const *input, float scale, float *output,
                       float min, float max) {
    const float32x4_t lo = vdupq_n_f32(min), hi = vdupq_n_f32(max), zero = vdupq_n_f32(0.0f);
    size_t c = 0;
    for (; c + 4 <= channels; c += 4) {
        float32x4_t total = zero;
        for (size_t t = 0; t < taps; t += 9) {
            float32x4_t x[9];
            for (size_t k = 0; k < 9; ++k) x[k] = t + k < taps ? vld1q_f32(input[t + k] + c) : zero;
            const float32x4_t s018 = vaddq_f32(vaddq_f32(x[0], x[1]), x[8]);
            const float32x4_t s23 = vaddq_f32(x[2], x[3]), s45 = vaddq_f32(x[4], x[5]), s67 = vaddq_f32(x[6], x[7]);
            total = vaddq_f32(total, vaddq_f32(vaddq_f32(s23, s45), vaddq_f32(s018, s67)));
        }
        vst1q_f32(output + c, clamp4(vmulq_f32(total, vdupq_n_f32(scale)), lo, hi));
    }
    for (; c < channels; ++c) { /* the last 1-3 channels as the scalar kernel takes them */
        float total = 0.0f;
        for (size_t t = 0; t < taps; t += 9) {
            float x[9];
            for (size_t k = 0; k < 9; ++k) x[k] = t + k < taps ? input[t + k][c] : 0.0f;
            total = total + f32_avgpool_sum9(x);
        }
        float v = total * scale;
        v = v < min ? min : v;
        output[c] = v > max ? max : v;
    }
}
