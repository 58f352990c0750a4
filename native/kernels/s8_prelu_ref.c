/* s8_prelu_ref.c — int8 PRELU over broadcast input and alpha, TFLite's builtin arithmetic (XNNPACK does not
 * take int8 PRELU in LiteRT's default Interpreter): a non-negative input rescaled by input/output scale, a
 * negative one times alpha by input*alpha/output scale, each with MultiplyByQuantizedMultiplier (double
 * rounding), plus the output zero point, saturated. */
#include "kernels.h"
#include "quant.h"

void s8_prelu_ref(const rl_broadcast *bc, const rl_s8_prelu_params *p, const int8_t *x, const int8_t *alpha, int8_t *y) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        const int32_t v = x[ia + index[7] * bc->a_strides[7]] - p->input_zero_point;
        int32_t out;
        if (v >= 0) {
            out = rl_mul_by_quantized_multiplier(v, p->positive_multiplier, p->positive_shift);
        } else {
            const int32_t a = alpha[ib + index[7] * bc->b_strides[7]] - p->alpha_zero_point;
            out = rl_mul_by_quantized_multiplier(v * a, p->negative_multiplier, p->negative_shift);
        }
        y[i] = (int8_t)rl_clamp_i32(out + p->output_zero_point, -128, 127);
        rl_next_index(8, bc->out_dims, index);
    }
}
