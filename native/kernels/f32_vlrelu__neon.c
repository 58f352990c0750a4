/* f32_vlrelu__neon.c — f32_vlrelu__scalar 8 elements a step, then 4, then the last 1-3 as the scalar kernel
 * (aarch64 and armv7): x > 0 (false for NaN and -0.0) selects x over x * alpha, the scalar bits. */
#include <arm_neon.h>

#include "kernels.h"

static float32x4_t lrelu4(float32x4_t x, float32x4_t alpha) {
    return vbslq_f32(vcgtq_f32(x, vdupq_n_f32(0.0f)), x, vmulq_f32(x, alpha));
}

void f32_vlrelu__neon(size_t n, float alpha, const float *x, float *y) {
    const float32x4_t a = vdupq_n_f32(alpha);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const float32x4_t v0 = lrelu4(vld1q_f32(x + i), a), v1 = lrelu4(vld1q_f32(x + i + 4), a);
        vst1q_f32(y + i, v0);
        vst1q_f32(y + i + 4, v1);
    }
    if (i + 4 <= n) {
        vst1q_f32(y + i, lrelu4(vld1q_f32(x + i), a));
        i += 4;
    }
    for (; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
}
