/* f32_qs8_vcvt__neon.c — f32_s8_quantize_ref, 16 floats a step, then 4, then the last 1-3 one at a time
 * (aarch64 and armv7): x * inverse_scale, clamped by the reference's comparisons (v > lo ? v : lo sends NaN
 * to lo; vmaxq_f32 would keep it), rounded to nearest with ties to even by adding and subtracting 1.5 * 2^23
 * (exact for the clamped |v| <= 255; armv7 NEON has no vcvtn), plus the zero point, then narrowed (the values
 * already sit in int8's range). */
#include <arm_neon.h>
#include <math.h>

#include "vcvt.h"

static int32x4_t convert4(float32x4_t x, float32x4_t scale, float32x4_t lo, float32x4_t hi, int32x4_t zero_point) {
    float32x4_t v = vmulq_f32(x, scale);
    v = vbslq_f32(vcgtq_f32(v, lo), v, lo);
    v = vbslq_f32(vcltq_f32(v, hi), v, hi);
    const float32x4_t magic = vdupq_n_f32(12582912.0f); /* 1.5 * 2^23: the sum's ulp is 1 */
    return vaddq_s32(vcvtq_s32_f32(vsubq_f32(vaddq_f32(v, magic), magic)), zero_point);
}

static int8x8_t narrow8(int32x4_t a, int32x4_t b) { return vmovn_s16(vcombine_s16(vmovn_s32(a), vmovn_s32(b))); }

void f32_qs8_vcvt__neon(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y) {
    const float lo_s = (float)(-128 - zero_point), hi_s = (float)(127 - zero_point);
    const float32x4_t scale = vdupq_n_f32(inverse_scale), lo = vdupq_n_f32(lo_s), hi = vdupq_n_f32(hi_s);
    const int32x4_t zp = vdupq_n_s32(zero_point);
    const size_t n = (size_t)count;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x8_t a = narrow8(convert4(vld1q_f32(x + i), scale, lo, hi, zp),
                                   convert4(vld1q_f32(x + i + 4), scale, lo, hi, zp));
        const int8x8_t b = narrow8(convert4(vld1q_f32(x + i + 8), scale, lo, hi, zp),
                                   convert4(vld1q_f32(x + i + 12), scale, lo, hi, zp));
        vst1q_s8(y + i, vcombine_s8(a, b));
    }
    for (; i + 4 <= n; i += 4) {
        const int32x4_t v = convert4(vld1q_f32(x + i), scale, lo, hi, zp);
        y[i] = (int8_t)vgetq_lane_s32(v, 0);
        y[i + 1] = (int8_t)vgetq_lane_s32(v, 1);
        y[i + 2] = (int8_t)vgetq_lane_s32(v, 2);
        y[i + 3] = (int8_t)vgetq_lane_s32(v, 3);
    }
    for (; i < n; ++i) { /* the reference, as written there */
        float v = x[i] * inverse_scale;
        v = v > lo_s ? v : lo_s;
        v = v < hi_s ? v : hi_s;
        y[i] = (int8_t)((int32_t)nearbyintf(v) + zero_point);
    }
}
