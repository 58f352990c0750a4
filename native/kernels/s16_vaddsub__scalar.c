/* s16_vaddsub__scalar.c — same-shape int16 ADD / SUB in TFLite's general arithmetic (s16_velementwise.h): the
 * specification of s16_vaddsub, the per-element formula of s16_binary_ref.c without the broadcast walk (with
 * one_rounding_blocks, LiteRT's one rounding of the inputs in its blocks of 16). */
#include "quant.h"
#include "s16_velementwise.h"

void s16_vaddsub__scalar(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b, int16_t *y) {
    const int sub = p->kind == RL_S16_SUB;
    const size_t blocks = p->one_rounding_blocks ? n - n % 16 : 0;
    for (size_t i = 0; i < n; ++i) {
        const int32_t xa = (int32_t)a[i] * (1 << p->left_shift), xb = (int32_t)b[i] * (1 << p->left_shift);
        const int32_t sa = i < blocks ? rl_mul_by_quantized_multiplier_single(xa, p->a_multiplier, p->a_shift)
                                      : rl_mul_by_quantized_multiplier(xa, p->a_multiplier, p->a_shift);
        const int32_t sb = i < blocks ? rl_mul_by_quantized_multiplier_single(xb, p->b_multiplier, p->b_shift)
                                      : rl_mul_by_quantized_multiplier(xb, p->b_multiplier, p->b_shift);
        const int32_t r = rl_mul_by_quantized_multiplier(sub ? sa - sb : sa + sb, p->out_multiplier, p->out_shift);
        y[i] = (int16_t)rl_clamp_i32(r, p->act_min, p->act_max);
    }
}
