/* s8_vsqrdiff__scalar.c — one row of int8 SQUARED_DIFFERENCE from two rows of n elements, in the arithmetic of
 * s8_squared_difference_ref.c (the specification): each operand's scaled value is a function of its 8 bits
 * alone, so it comes from the op's 256-entry table (filled with the reference's own formula at prepare),
 * leaving one requantization of the square per element instead of three and the broadcast walk per row. */
#include "kernels.h"
#include "quant.h"

void s8_vsqrdiff__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *y, const rl_s8_sqrdiff_row_params *p) {
    for (size_t i = 0; i < n; ++i) {
        const int32_t diff = p->scaled[0][a[i] + 128] - p->scaled[1][b[i] + 128]; /* |diff| < 2^15 */
        const int32_t out = rl_mul_by_quantized_multiplier(diff * diff, p->output_multiplier, p->output_shift);
        y[i] = (int8_t)rl_clamp_i32(out + p->output_zero_point, -128, 127);
    }
}
