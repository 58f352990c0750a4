/* s8_requantize_ref.c — int8 to int8 with another scale and zero point, as XNNPACK's qs8 conversion:
 * (x - input_zero_point) * multiplier_q8 / 256 rounded with ties toward +infinity, plus the output zero
 * point, where multiplier_q8 = round(input_scale / output_scale * 256). */
#include "kernels.h"

void s8_requantize_ref(int64_t count, int32_t input_zero_point, int32_t multiplier_q8, int32_t output_zero_point,
                       const int8_t *x, int8_t *y) {
    for (int64_t i = 0; i < count; ++i) {
        const int32_t scaled = (x[i] - input_zero_point) * multiplier_q8 + 128;
        /* Floor division by 256 (an arithmetic shift), written without shifting a negative number. */
        const int32_t q = (scaled >= 0 ? scaled / 256 : -((-scaled + 255) / 256)) + output_zero_point;
        y[i] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
    }
}
