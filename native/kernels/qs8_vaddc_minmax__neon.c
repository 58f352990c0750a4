/* qs8_vaddc_minmax__neon.c — qs8_vaddc_minmax__scalar, 8 elements a step (aarch64 and armv7): the vector
 * widened to int32, multiplied and added to the bias that holds b[0]'s term, shifted right arithmetically
 * (vshlq by a negative count: truncating, as the scalar >>), the zero point added, narrowed with saturation
 * (monotonic, so the clamp that follows gives the scalar result), clamped. The last 1-7 elements go through
 * the scalar kernel, so nothing past n is read or written. */
#include <arm_neon.h>

#include "kernels.h"

static void qs8_vaddc_minmax_rows(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                  const rl_s8_binary_params *p) {
    const int32x4_t bias = vdupq_n_s32((int32_t)((uint32_t)p->xnn_bias + (uint32_t)(b[0] * p->xnn_b_multiplier)));
    const int32x4_t am = vdupq_n_s32(p->xnn_a_multiplier), shift = vdupq_n_s32(-p->xnn_shift);
    const int32x4_t zp = vdupq_n_s32(p->output_zero_point);
    const int8x8_t lo = vdup_n_s8((int8_t)p->act_min), hi = vdup_n_s8((int8_t)p->act_max);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t va = vmovl_s8(vld1_s8(a + i));
        int32x4_t acc_lo = vmlaq_s32(bias, vmovl_s16(vget_low_s16(va)), am);
        int32x4_t acc_hi = vmlaq_s32(bias, vmovl_s16(vget_high_s16(va)), am);
        acc_lo = vaddq_s32(vshlq_s32(acc_lo, shift), zp);
        acc_hi = vaddq_s32(vshlq_s32(acc_hi, shift), zp);
        const int16x8_t words = vcombine_s16(vqmovn_s32(acc_lo), vqmovn_s32(acc_hi));
        vst1_s8(out + i, vmin_s8(vmax_s8(vqmovn_s16(words), lo), hi));
    }
    if (i < n) qs8_vaddc_minmax__scalar(n - i, a + i, b, out + i, p);
}

/* With one operand constant the result is a function of a's byte alone: past TABLE_FROM elements (an image
 * scaled or shifted by one value, a whole layer's tensor) the 256 results are computed once, by the loop above on
 * the 256 byte values, and looked up (s8_lut__neon: about a fifth of the loop's instructions an element). The
 * same loop makes both, so the bits are the same. */
enum { TABLE_FROM = 512 };

void qs8_vaddc_minmax__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    if (n < TABLE_FROM) {
        qs8_vaddc_minmax_rows(n, a, b, out, p);
        return;
    }
    int8_t values[256], table[256];
    for (int v = 0; v < 256; ++v) values[v] = (int8_t)(uint8_t)v; /* indexed by the byte as uint8, as s8_lut */
    qs8_vaddc_minmax_rows(256, values, b, table, p);
    s8_lut__neon((int64_t)n, table, a, out);
}
