/* qs8_vmul_minmax_fp32__neon.c — qs8_vmul_minmax_fp32__scalar (aarch64 and armv7): the inputs less their zero
 * points in int16 (vsubl_s8: within +-255), exact int32 products (vmull_s16), then qs8_requantize__neon.h's
 * float scale and ties-to-even rounding with the zero point added and the clamp. aarch64 takes 16 elements a
 * step (then 8), clamping once per 16 in int8 after the narrowings; armv7 8, clamping in float before rounding. The last
 * elements go through the scalar kernel, so nothing past n is read or written. */
#include "kernels.h"
#include "qs8_requantize__neon.h"

void qs8_vmul_minmax_fp32__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                const rl_s8_binary_params *p) {
    const float32x4_t scale = vdupq_n_f32(p->scale);
    const rl_neon_requantization rq = rl_neon_requantization_make(
        (float)(p->act_min - p->output_zero_point), (float)(p->act_max - p->output_zero_point), p->output_zero_point);
    size_t i = 0;
#if defined(__aarch64__)
    const int8x16_t za = vdupq_n_s8((int8_t)p->a_zero_point), zb = vdupq_n_s8((int8_t)p->b_zero_point);
    for (; i + 16 <= n; i += 16) {
        const int8x16_t va = vld1q_s8(a + i), vb = vld1q_s8(b + i);
        const int16x8_t a0 = vsubl_s8(vget_low_s8(va), vget_low_s8(za)), a1 = vsubl_high_s8(va, za);
        const int16x8_t b0 = vsubl_s8(vget_low_s8(vb), vget_low_s8(zb)), b1 = vsubl_high_s8(vb, zb);
        const int16x8_t lo = rl_neon_requantize_s16(vmull_s16(vget_low_s16(a0), vget_low_s16(b0)),
                                                    vmull_high_s16(a0, b0), scale, scale, &rq);
        const int16x8_t hi = rl_neon_requantize_s16(vmull_s16(vget_low_s16(a1), vget_low_s16(b1)),
                                                    vmull_high_s16(a1, b1), scale, scale, &rq);
        vst1q_s8(out + i, rl_neon_clamp16(lo, hi, &rq));
    }
    if (i + 8 <= n) {
        const int16x8_t va = vsubl_s8(vld1_s8(a + i), vget_low_s8(za)), vb = vsubl_s8(vld1_s8(b + i), vget_low_s8(zb));
        const int16x8_t q = rl_neon_requantize_s16(vmull_s16(vget_low_s16(va), vget_low_s16(vb)),
                                                   vmull_high_s16(va, vb), scale, scale, &rq);
        vst1_s8(out + i, vmin_s8(vmax_s8(vqmovn_s16(q), vget_low_s8(rq.vmin8)), vget_low_s8(rq.vmax8)));
        i += 8;
    }
#else
    const int8x8_t za = vdup_n_s8((int8_t)p->a_zero_point), zb = vdup_n_s8((int8_t)p->b_zero_point);
    for (; i + 8 <= n; i += 8) {
        const int16x8_t va = vsubl_s8(vld1_s8(a + i), za), vb = vsubl_s8(vld1_s8(b + i), zb);
        const int32x4_t lo = rl_neon_requantize4(vmull_s16(vget_low_s16(va), vget_low_s16(vb)), scale, &rq);
        const int32x4_t hi = rl_neon_requantize4(vmull_s16(vget_high_s16(va), vget_high_s16(vb)), scale, &rq);
        vst1_s8(out + i, vqmovn_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi))));
    }
#endif
    if (i < n) qs8_vmul_minmax_fp32__scalar(n - i, a + i, b + i, out + i, p);
}
