/* s16_relu_ref.c — int16 RELU, RELU6 and LEAKY_RELU as TFLite's ReluX and QuantizeLeakyRelu: a value rescaled
 * to the output's scale by one multiplier (its sign's: identity or alpha), then clamped. A negative alpha
 * comes as its magnitude and a negated result, as TFLite keeps the multiplier non-negative. */
#include "quant.h"
#include "s16_elementwise.h"

void s16_relu_ref(int64_t n, int32_t pos_multiplier, int32_t pos_shift, int32_t neg_multiplier, int32_t neg_shift,
                  int32_t lo, int32_t hi, const int16_t *x, int16_t *y) {
    const int negate = neg_multiplier < 0;
    const int32_t neg_m = negate ? -neg_multiplier : neg_multiplier;
    for (int64_t i = 0; i < n; ++i) {
        int32_t r;
        if (x[i] >= 0) {
            r = rl_mul_by_quantized_multiplier(x[i], pos_multiplier, pos_shift);
        } else {
            r = rl_mul_by_quantized_multiplier(x[i], neg_m, neg_shift);
            if (negate) r = -r;
        }
        y[i] = (int16_t)rl_clamp_i32(r, lo, hi);
    }
}
