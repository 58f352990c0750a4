/* f32_vscale__neon.c — y = x * s (f32_vexp.h), NEON: 16 values a step (on aarch64 one ld1 of four registers;
 * the stores as four, which gcc pairs, since its st1 of four registers went through the stack), then 4, then a
 * last n % 4 through a block on the stack (nothing past n is touched). */
#include "f32_vexp__neon.h"

void f32_vscale__neon(size_t n, const float *x, float s, float *y) {
    const float32x4_t vs = vdupq_n_f32(s);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#if defined(__aarch64__)
        const float32x4x4_t v = vld1q_f32_x4(x + i);
#else
        const float32x4x4_t v = {{vld1q_f32(x + i), vld1q_f32(x + i + 4), vld1q_f32(x + i + 8), vld1q_f32(x + i + 12)}};
#endif
        vst1q_f32(y + i, vmulq_f32(v.val[0], vs));
        vst1q_f32(y + i + 4, vmulq_f32(v.val[1], vs));
        vst1q_f32(y + i + 8, vmulq_f32(v.val[2], vs));
        vst1q_f32(y + i + 12, vmulq_f32(v.val[3], vs));
    }
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vmulq_f32(vld1q_f32(x + i), vs));
    if (i < n) rl_neon_store_tail(y + i, vmulq_f32(rl_neon_load_tail(x + i, n - i), vs), n - i);
}
