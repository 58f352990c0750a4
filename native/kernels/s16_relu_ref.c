/* s16_relu_ref.c — int16 RELU, RELU6 and LEAKY_RELU as LiteRT runs them: TFLite's ReluX, and the optimized int16
 * QuantizeLeakyRelu: a value rescaled to the output's scale by one multiplier (its sign's: identity or alpha),
 * then clamped. A negative alpha stays a negative multiplier there (the reference kernel's negate-after-rounding
 * would round ties the other way). */
#include "quant.h"
#include "s16_elementwise.h"

void s16_relu_ref(int64_t n, int32_t pos_multiplier, int32_t pos_shift, int32_t neg_multiplier, int32_t neg_shift,
                  int32_t lo, int32_t hi, const int16_t *x, int16_t *y) {
    for (int64_t i = 0; i < n; ++i) {
        const int32_t r = x[i] >= 0 ? rl_mul_by_quantized_multiplier(x[i], pos_multiplier, pos_shift)
                                    : rl_mul_by_quantized_multiplier(x[i], neg_multiplier, neg_shift);
        y[i] = (int16_t)rl_clamp_i32(r, lo, hi);
    }
}
