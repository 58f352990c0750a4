/* s8_abs_ref.c — int8 ABS as TFLite's builtin kernel computes it (LiteRT's default Interpreter runs it there:
 * XNNPACK does not take int8 ABS in LiteRT 2.3): |x - input zero point|, moved to the output's zero point
 * as it is when the two scales are equal, else through the input-to-output multiplier (double rounding). */
#include "kernels.h"
#include "quant.h"

void s8_abs_ref(int64_t count, const rl_s8_abs_params *p, const int8_t *x, int8_t *y) {
    for (int64_t i = 0; i < count; ++i) {
        int32_t v = x[i] - p->input_zero_point;
        v = v < 0 ? -v : v;
        if (p->rescale) v = rl_mul_by_quantized_multiplier(v, p->multiplier, p->shift);
        y[i] = (int8_t)rl_clamp_i32(v + p->output_zero_point, -128, 127);
    }
}
