/* qs8_vadd_minmax__neon.c — qs8_vadd_minmax__scalar, 16 elements a step (aarch64 and armv7), in XNNPACK's
 * qs8-vadd NEON order: each input less its zero point, widened to int16 in one instruction (vsubl_s8), then to
 * int32, times its multiplier, summed, and shifted right rounding half up (vrshlq by a negative count adds
 * 2^(shift-1) first, computed without wrapping); narrowed to int16 with saturation, the output zero point
 * added in int16 saturating, narrowed to int8, clamped. The scalar kernel adds the same 2^(shift-1), and the zero
 * points' terms, through its bias and shifts truncating: the sums are equal because nothing wraps (prepare's
 * multipliers are below 2^21 in magnitude, so |bias + a * am + b * bm| < 2^30 and
 * |(a - za) * am + (b - zb) * bm| < 2^30), and every saturating step is monotone and exact wherever the result
 * lies in [-128, 127], so the clamp gives the scalar bytes. About 2.6 instructions an element, against 3.3 for
 * the former 8-a-step bias form (a mov to copy the bias into each accumulator, an int32 zero-point add per 4).
 * The last 1-15 elements go through the scalar kernel, so nothing past n is read or written. */
#include <arm_neon.h>

#include "kernels.h"

/* 8 elements' shifted sums from the two inputs less their zero points (int16). */
static inline int16x8_t vadd8(int16x8_t xa, int16x8_t xb, int32x4_t am, int32x4_t bm, int32x4_t shift,
                              int16x8_t zp) {
    int32x4_t lo = vmulq_s32(vmovl_s16(vget_low_s16(xa)), am);
    int32x4_t hi = vmulq_s32(vmovl_s16(vget_high_s16(xa)), am);
    lo = vmlaq_s32(lo, vmovl_s16(vget_low_s16(xb)), bm);
    hi = vmlaq_s32(hi, vmovl_s16(vget_high_s16(xb)), bm);
    lo = vrshlq_s32(lo, shift);
    hi = vrshlq_s32(hi, shift);
    return vqaddq_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi)), zp);
}

void qs8_vadd_minmax__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const int8x8_t za = vdup_n_s8((int8_t)p->a_zero_point), zb = vdup_n_s8((int8_t)p->b_zero_point);
    const int32x4_t am = vdupq_n_s32(p->xnn_a_multiplier), bm = vdupq_n_s32(p->xnn_b_multiplier);
    const int32x4_t shift = vdupq_n_s32(-p->xnn_shift);
    const int16x8_t zp = vdupq_n_s16((int16_t)p->output_zero_point);
    const int8x16_t lo = vdupq_n_s8((int8_t)p->act_min), hi = vdupq_n_s8((int8_t)p->act_max);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16_t va = vld1q_s8(a + i), vb = vld1q_s8(b + i);
        const int16x8_t first = vadd8(vsubl_s8(vget_low_s8(va), za), vsubl_s8(vget_low_s8(vb), zb), am, bm, shift, zp);
        const int16x8_t second =
            vadd8(vsubl_s8(vget_high_s8(va), za), vsubl_s8(vget_high_s8(vb), zb), am, bm, shift, zp);
        const int8x16_t bytes = vcombine_s8(vqmovn_s16(first), vqmovn_s16(second));
        vst1q_s8(out + i, vminq_s8(vmaxq_s8(bytes, lo), hi));
    }
    if (i < n) qs8_vadd_minmax__scalar(n - i, a + i, b + i, out + i, p);
}
