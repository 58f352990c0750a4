/* s8_squared_difference_ref.c — int8 SQUARED_DIFFERENCE of broadcast operands as TFLite's builtin kernel
 * computes it (LiteRT's default Interpreter runs it there; XNNPACK does not take it on int8 in LiteRT 2.3):
 * each operand less its zero point, shifted left by 7, scaled by its share of twice the larger input scale
 * (a multiplier below one), the difference squared in int32 and requantized (double rounding). */
#include "kernels.h"
#include "quant.h"

static int32_t scaled(int8_t v, int32_t zero_point, int32_t multiplier, int32_t shift) {
    return rl_mul_by_quantized_multiplier((v - zero_point) * (1 << 7), multiplier, shift);
}

void s8_squared_difference_ref(const rl_broadcast *bc, const rl_s8_squared_difference_params *p, const int8_t *a,
                               const int8_t *b, int8_t *y) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        const int32_t va = scaled(a[ia + index[7] * bc->a_strides[7]], p->zero_point[0], p->multiplier[0], p->shift[0]);
        const int32_t vb = scaled(b[ib + index[7] * bc->b_strides[7]], p->zero_point[1], p->multiplier[1], p->shift[1]);
        const int32_t diff = va - vb; /* |diff| < 2^15: the square fits int32 */
        const int32_t out = rl_mul_by_quantized_multiplier(diff * diff, p->output_multiplier, p->output_shift);
        y[i] = (int8_t)rl_clamp_i32(out + p->output_zero_point, -128, 127);
        rl_next_index(8, bc->out_dims, index);
    }
}
