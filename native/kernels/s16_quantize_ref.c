/* s16_quantize_ref.c — requantization to and from int16 and DEQUANTIZE of int16, as LiteRT's builtin kernels
 * (XNNPACK takes no int16 conversion): reference Requantize, MultiplyByQuantizedMultiplier. float to int16 is
 * f32_s16_vcvt (s16_velementwise.h). */
#include <math.h>

#include "quant.h"
#include "s16_elementwise.h"

void s16_requantize_ref(int64_t n, int32_t x_is_int16, int32_t y_is_int16, int32_t x_zero_point, int32_t multiplier,
                        int32_t shift, int32_t y_zero_point, const void *x, void *y) {
    const int32_t lo = y_is_int16 ? -32768 : -128, hi = y_is_int16 ? 32767 : 127;
    for (int64_t i = 0; i < n; ++i) {
        const int32_t v = x_is_int16 ? ((const int16_t *)x)[i] : ((const int8_t *)x)[i];
        const int32_t scaled = rl_mul_by_quantized_multiplier(v - x_zero_point, multiplier, shift);
        const int32_t r = rl_clamp_i32(scaled + y_zero_point, lo, hi);
        if (y_is_int16)
            ((int16_t *)y)[i] = (int16_t)r;
        else
            ((int8_t *)y)[i] = (int8_t)r;
    }
}

void s16_f32_dequantize_ref(int64_t n, float scale, int32_t zero_point, const int16_t *x, float *y) {
    /* TFLite multiplies in double; the product of a float and a 17-bit integer is exact there, so rounding it
     * to float gives the float product's bits. */
    for (int64_t i = 0; i < n; ++i) y[i] = scale * (float)((int32_t)x[i] - zero_point);
}
