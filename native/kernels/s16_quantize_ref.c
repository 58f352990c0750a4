/* s16_quantize_ref.c — QUANTIZE to and from int16 and DEQUANTIZE of int16, as LiteRT's builtin kernels (XNNPACK
 * takes no int16 conversion). float to int16 is TFLite's optimized AffineQuantize<int16_t>, which on x86 runs its
 * NEON code through NEON_2_SSE: blocks of 8 values multiplied by the float reciprocal of the scale and rounded
 * half to even (cvtps2dq), and the last n % 8 values by its scalar tail, which divides by the scale in double and
 * rounds half away from zero. Requantization is reference Requantize: MultiplyByQuantizedMultiplier. */
#include <math.h>

#include "quant.h"
#include "s16_elementwise.h"

static int16_t clamp16(int32_t v, int32_t zero_point) {
    const int64_t shifted = (int64_t)v + zero_point;
    return (int16_t)(shifted < -32768 ? -32768 : (shifted > 32767 ? 32767 : shifted));
}

void f32_s16_quantize_ref(int64_t n, double scale, int32_t zero_point, const float *x, int16_t *y) {
    const float inverse = (float)(1.0 / scale);
    const int64_t blocked = n - n % 8;
    int64_t i = 0;
    for (; i < blocked; ++i) {
        const float v = x[i] * inverse;
        /* cvtps2dq: NaN and values outside int32 give INT32_MIN */
        y[i] = clamp16(v >= -2147483648.0f && v < 2147483648.0f ? (int32_t)lrintf(v) : INT32_MIN, zero_point);
    }
    for (; i < n; ++i) {
        const double q = round((double)x[i] / scale);
        /* the tail's int32 cast, out of range (and NaN) x86's INT32_MIN, spelled out as C leaves it undefined */
        y[i] = clamp16(q >= -2147483648.0 && q < 2147483648.0 ? (int32_t)q : INT32_MIN, zero_point);
    }
}

void s16_requantize_ref(int64_t n, int32_t x_is_int16, int32_t y_is_int16, int32_t x_zero_point, int32_t multiplier,
                        int32_t shift, int32_t y_zero_point, const void *x, void *y) {
    const int32_t lo = y_is_int16 ? -32768 : -128, hi = y_is_int16 ? 32767 : 127;
    for (int64_t i = 0; i < n; ++i) {
        const int32_t v = x_is_int16 ? ((const int16_t *)x)[i] : ((const int8_t *)x)[i];
        const int32_t r = rl_clamp_i32(rl_mul_by_quantized_multiplier(v - x_zero_point, multiplier, shift) + y_zero_point,
                                       lo, hi);
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
