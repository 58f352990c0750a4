/* s32_s8_requantize_fixedpoint__neon.c — requantize_fixedpoint.h on four sums at a time. vqrdmulh is gemmlowp's
 * SaturatingRoundingDoublingHighMul exactly: (2ab + 2^31) >> 32 is floor((ab + 2^30) / 2^31), which is gemmlowp's
 * nudge-and-truncate for either sign, and it saturates only for INT32_MIN * INT32_MIN, impossible with a positive
 * multiplier. RoundingDivideByPOT is gemmlowp's mask-and-threshold form lane by lane (vshl by a negative count is an
 * arithmetic right shift). The last n % 4 sums go through the scalar kernel. */
#include <arm_neon.h>
#include <string.h>

#include "requantize_fixedpoint.h"

void s32_s8_requantize_fixedpoint__neon(size_t n, const int32_t *acc, int32_t multiplier, int32_t shift,
                                        int32_t zero_point, int32_t lo, int32_t hi, int8_t *out) {
    const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const int32x4_t vleft = vdupq_n_s32(left), vright = vdupq_n_s32(-right);
    const int32x4_t vmultiplier = vdupq_n_s32(multiplier);
    const int32x4_t vmask = vdupq_n_s32((int32_t)(((int64_t)1 << right) - 1));
    const int32x4_t vthreshold = vshrq_n_s32(vmask, 1);
    const int32x4_t vzp = vdupq_n_s32(zero_point), vlo = vdupq_n_s32(lo), vhi = vdupq_n_s32(hi);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const int32x4_t high = vqrdmulhq_s32(vshlq_s32(vld1q_s32(acc + i), vleft), vmultiplier);
        const int32x4_t remainder = vandq_s32(high, vmask);
        /* the threshold is one more below 0: vcltq gives all ones (-1) there */
        const int32x4_t threshold = vsubq_s32(vthreshold, vreinterpretq_s32_u32(vcltq_s32(high, vdupq_n_s32(0))));
        int32x4_t v = vsubq_s32(vshlq_s32(high, vright), vreinterpretq_s32_u32(vcgtq_s32(remainder, threshold)));
        v = vminq_s32(vmaxq_s32(vaddq_s32(v, vzp), vlo), vhi);
        const int16x4_t words = vmovn_s32(v);
        const int8x8_t bytes = vmovn_s16(vcombine_s16(words, words));
        const int32_t packed = vget_lane_s32(vreinterpret_s32_s8(bytes), 0);
        memcpy(out + i, &packed, 4);
    }
    s32_s8_requantize_fixedpoint__scalar(n - i, acc + i, multiplier, shift, zero_point, lo, hi, out + i);
}
