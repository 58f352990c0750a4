/* f32_s16_vcvt__scalar.c — float to int16 as LiteRT's optimized AffineQuantize<int16_t> computes it on x86
 * (s16_velementwise.h): the specification of f32_s16_vcvt. */
#include <math.h>

#include "s16_velementwise.h"

/* The int32 result plus the zero point wrapping, as 32-bit lanes and x86's int32 add do, then clamped. */
static int16_t clamp16(int32_t v, int32_t zero_point) {
    const int32_t shifted = (int32_t)((uint32_t)v + (uint32_t)zero_point);
    return (int16_t)(shifted < -32768 ? -32768 : (shifted > 32767 ? 32767 : shifted));
}

void f32_s16_vcvt__scalar(size_t n, double scale, int32_t zero_point, const float *x, int16_t *y) {
    const float inverse = (float)(1.0 / scale);
    const size_t blocked = n - n % 8;
    size_t i = 0;
    for (; i < blocked; ++i) {
        const float v = x[i] * inverse;
        /* cvtps2dq rounds half to even; NaN and values outside int32 give INT32_MIN */
        y[i] = clamp16(v >= -2147483648.0f && v < 2147483648.0f ? (int32_t)lrintf(v) : INT32_MIN, zero_point);
    }
    for (; i < n; ++i) {
        const double q = round((double)x[i] / scale);
        /* the tail's int32 cast, out of range (and NaN) x86's INT32_MIN, spelled out as C leaves it undefined */
        y[i] = clamp16(q >= -2147483648.0 && q < 2147483648.0 ? (int32_t)q : INT32_MIN, zero_point);
    }
}
