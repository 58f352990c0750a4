/* qs8_f32_vcvt__neon.c — qs8_f32_vcvt__scalar, 16 bytes a step, then 8, then the last 1-7 one at a time
 * (aarch64 and armv7): bytes widened to int32, less the zero point, converted (exactly) and multiplied by the
 * scale, the scalar kernel's one rounding (armv7 NEON flushes a subnormal product to zero: equal for normal
 * floats). */
#include <arm_neon.h>

#include "vcvt.h"

static float32x4_t convert4(int16x4_t v, int32x4_t zero_point, float32x4_t scale) {
    return vmulq_f32(vcvtq_f32_s32(vsubq_s32(vmovl_s16(v), zero_point)), scale);
}

static void convert8(int8x8_t bytes, int32x4_t zero_point, float32x4_t scale, float *y) {
    const int16x8_t v = vmovl_s8(bytes);
    vst1q_f32(y, convert4(vget_low_s16(v), zero_point, scale));
    vst1q_f32(y + 4, convert4(vget_high_s16(v), zero_point, scale));
}

void qs8_f32_vcvt__neon(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y) {
    const float32x4_t vscale = vdupq_n_f32(scale);
    const int32x4_t zp = vdupq_n_s32(zero_point);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16_t v = vld1q_s8(x + i);
        convert8(vget_low_s8(v), zp, vscale, y + i);
        convert8(vget_high_s8(v), zp, vscale, y + i + 8);
    }
    for (; i + 8 <= n; i += 8) convert8(vld1_s8(x + i), zp, vscale, y + i);
    for (; i < n; ++i) y[i] = (float)(x[i] - zero_point) * scale;
}
