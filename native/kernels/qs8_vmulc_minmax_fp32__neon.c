/* qs8_vmulc_minmax_fp32__neon.c — qs8_vmulc_minmax_fp32__scalar, 8 elements a step (aarch64 and armv7): the
 * vector less its zero point in int16 (vsubl_s8: within +-255), exact int32 products with b[0]'s offset
 * (vmull_n_s16), then qs8_requantize__neon.h's float scale, clamp and ties-to-even rounding with the zero
 * point added, narrowed (every value is already in the clamp range). The last 1-7 elements go through the
 * scalar kernel, so nothing past n is read or written. */
#include "kernels.h"
#include "qs8_requantize__neon.h"

static void qs8_vmulc_minmax_fp32_rows(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                 const rl_s8_binary_params *p) {
    const int8x8_t za = vdup_n_s8((int8_t)p->a_zero_point);
    const int16_t vb = (int16_t)(b[0] - p->b_zero_point);
    const float32x4_t scale = vdupq_n_f32(p->scale);
    const rl_neon_requantization rq = rl_neon_requantization_make(
        (float)(p->act_min - p->output_zero_point), (float)(p->act_max - p->output_zero_point), p->output_zero_point);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t va = vsubl_s8(vld1_s8(a + i), za);
        const int32x4_t lo = rl_neon_requantize4(vmull_n_s16(vget_low_s16(va), vb), scale, &rq);
        const int32x4_t hi = rl_neon_requantize4(vmull_n_s16(vget_high_s16(va), vb), scale, &rq);
        vst1_s8(out + i, vqmovn_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi))));
    }
    if (i < n) qs8_vmulc_minmax_fp32__scalar(n - i, a + i, b, out + i, p);
}

/* With one operand constant the result is a function of a's byte alone: past TABLE_FROM elements (an image
 * scaled or shifted by one value, a whole layer's tensor) the 256 results are computed once, by the loop above on
 * the 256 byte values, and looked up (s8_lut__neon: about a fifth of the loop's instructions an element). The
 * same loop makes both, so the bits are the same. */
enum { TABLE_FROM = 512 };

void qs8_vmulc_minmax_fp32__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    if (n < TABLE_FROM) {
        qs8_vmulc_minmax_fp32_rows(n, a, b, out, p);
        return;
    }
    int8_t values[256], table[256];
    for (int v = 0; v < 256; ++v) values[v] = (int8_t)(uint8_t)v; /* indexed by the byte as uint8, as s8_lut */
    qs8_vmulc_minmax_fp32_rows(256, values, b, table, p);
    s8_lut__neon((int64_t)n, table, a, out);
}
