/* qs8_vmulc_minmax_fp32__neon.c — qs8_vmulc_minmax_fp32__scalar, 8 elements a step (aarch64 and armv7): the
 * vector less its zero point in int16 (vsubl_s8: within +-255), exact int32 products with b[0]'s offset
 * (vmull_n_s16), then qs8_requantize__neon.h's float scale, clamp and ties-to-even rounding with the zero
 * point added, narrowed (every value is already in the clamp range). The last 1-7 elements go through the
 * scalar kernel, so nothing past n is read or written. */
#include "kernels.h"
#include "qs8_requantize__neon.h"

void qs8_vmulc_minmax_fp32__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                 const rl_s8_binary_params *p) {
    const int8x8_t za = vdup_n_s8((int8_t)p->a_zero_point);
    const int16_t vb = (int16_t)(b[0] - p->b_zero_point);
    const float32x4_t scale = vdupq_n_f32(p->scale);
    const rl_neon_requantization rq = {vdupq_n_f32((float)(p->act_min - p->output_zero_point)),
                                       vdupq_n_f32((float)(p->act_max - p->output_zero_point)),
                                       vdupq_n_s32(p->output_zero_point)};
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t va = vsubl_s8(vld1_s8(a + i), za);
        const int32x4_t lo = rl_neon_requantize4(vmull_n_s16(vget_low_s16(va), vb), scale, &rq);
        const int32x4_t hi = rl_neon_requantize4(vmull_n_s16(vget_high_s16(va), vb), scale, &rq);
        vst1_s8(out + i, vqmovn_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi))));
    }
    if (i < n) qs8_vmulc_minmax_fp32__scalar(n - i, a + i, b, out + i, p);
}
