/* s8_vsqrdiffc__scalar.c — one row of int8 SQUARED_DIFFERENCE from a row of n elements and one element b[0]
 * (a layer norm's x less its broadcast mean), in the arithmetic of s8_squared_difference_ref.c: the scaled
 * values from the op's tables, b's looked up once per row. */
#include "kernels.h"
#include "quant.h"

void s8_vsqrdiffc__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *y, const rl_s8_sqrdiff_row_params *p) {
    const int32_t vb = p->scaled[1][b[0] + 128];
    for (size_t i = 0; i < n; ++i) {
        const int32_t diff = p->scaled[0][a[i] + 128] - vb; /* |diff| < 2^15 */
        const int32_t out = rl_mul_by_quantized_multiplier(diff * diff, p->output_multiplier, p->output_shift);
        y[i] = (int8_t)rl_clamp_i32(out + p->output_zero_point, -128, 127);
    }
}
