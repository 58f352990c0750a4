/* quant.c — turning real multipliers into fixed point, the way TFLite's QuantizeMultiplier does. */
#include <math.h>

#include "quant.h"

int rl_quantize_multiplier(double m, int32_t *multiplier, int32_t *shift) {
    *multiplier = 0;
    *shift = 0;
    if (m == 0.0) return 0;
    if (!(m > 0.0) || !isfinite(m)) return 1;
    int exponent = 0;
    const double q = frexp(m, &exponent);
    int64_t fixed = (int64_t)round(q * 2147483648.0); /* TfLiteRound: ties away from zero */
    if (fixed == (1LL << 31)) {
        fixed /= 2;
        ++exponent;
    }
    if (exponent < -31) return 0; /* too small to matter: TFLite makes it exactly zero */
    if (exponent > 31) return 1;
    *multiplier = (int32_t)fixed;
    *shift = exponent;
    return 0;
}
