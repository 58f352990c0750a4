/* qs8_vadd_minmax__neon.c — qs8_vadd_minmax__scalar, 8 elements a step (aarch64 and armv7): both inputs
 * widened to int32, multiplied and added (wrapping, as the scalar int32 arithmetic), shifted right
 * arithmetically (vshlq by a negative count: truncating, as the scalar >>), the zero point added, narrowed with
 * saturation (monotonic, so the clamp that follows gives the scalar result), clamped. The last 1-7 elements
 * go through the scalar kernel, so nothing past n is read or written. */
#include <arm_neon.h>

#include "kernels.h"

void qs8_vadd_minmax__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const int32x4_t bias = vdupq_n_s32(p->xnn_bias), am = vdupq_n_s32(p->xnn_a_multiplier);
    const int32x4_t bm = vdupq_n_s32(p->xnn_b_multiplier), shift = vdupq_n_s32(-p->xnn_shift);
    const int32x4_t zp = vdupq_n_s32(p->output_zero_point);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_min), hi = vdup_n_s8((int8_t)p->act_max);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t va = vmovl_s8(vld1_s8(a + i)), vb = vmovl_s8(vld1_s8(b + i));
        int32x4_t acc_lo = vmlaq_s32(vmlaq_s32(bias, vmovl_s16(vget_low_s16(va)), am), vmovl_s16(vget_low_s16(vb)), bm);
        int32x4_t acc_hi = vmlaq_s32(vmlaq_s32(bias, vmovl_s16(vget_high_s16(va)), am), vmovl_s16(vget_high_s16(vb)), bm);
        acc_lo = vaddq_s32(vshlq_s32(acc_lo, shift), zp);
        acc_hi = vaddq_s32(vshlq_s32(acc_hi, shift), zp);
        const int16x8_t words = vcombine_s16(vqmovn_s32(acc_lo), vqmovn_s32(acc_hi));
        vst1_s8(out + i, vmin_s8(vmax_s8(vqmovn_s16(words), lo), hi));
    }
    if (i < n) qs8_vadd_minmax__scalar(n - i, a + i, b + i, out + i, p);
}
