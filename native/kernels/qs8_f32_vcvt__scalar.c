/* qs8_f32_vcvt__scalar.c — int8 to float32 (DEQUANTIZE), the specification: (x - zero_point) converted to
 * float, times the scale. */
#include "vcvt.h"

void qs8_f32_vcvt__scalar(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y) {
    for (size_t i = 0; i < n; ++i) y[i] = (float)(x[i] - zero_point) * scale;
}
