/* f32_qs8_asymmetric_quantize_tflite_ref.c — TFLite's tensor_utils::AsymmetricQuantizeFloats, with which its
 * hybrid kernels (EvalHybridPerChannel of DEPTHWISE_CONV_2D, which XNNPACK does not take) quantize an image:
 * scale and zero point worked out in double from the range in float, the zero point rounded half away from
 * zero, then each value round(x * (1.0f / scale)) half away from zero, in float. XNNPACK's qd8 quantization
 * (f32_qd8_quantize_ref) computes its scale in float and rounds ties to even, which picks another integer
 * for a few values in ten thousand. Returns the scale; an all-zero range gives scale 1, zero point 0. */
#include <math.h>
#include <string.h>

#include "kernels.h"

float f32_qs8_asymmetric_quantize_tflite_ref(int64_t n, const float *x, int8_t *q, int32_t *zero_point) {
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    if (lo == hi) {
        memset(q, 0, (size_t)n);
        *zero_point = 0;
        return 1.0f;
    }
    /* The range is subtracted in float (its NEON and SSE versions, which LiteRT's x86 and Arm builds run),
     * the rest in double. */
    const double rmin = lo, rmax = hi, scale = (double)(hi - lo) / 255.0;
    const double from_min = -128.0 - rmin / scale, from_max = 127.0 - rmax / scale;
    const double from_min_error = 128.0 + fabs(rmin / scale), from_max_error = 127.0 + fabs(rmax / scale);
    const double zp_real = from_min_error < from_max_error ? from_min : from_max;
    /* An infinite range gives a NaN zero point and NaN values (x86's conversion makes them 0x80000000 in
     * LiteRT: zero point 0, values the lowest); converting a NaN in C would be undefined. */
    const int32_t zp = zp_real != zp_real ? 0
                       : zp_real <= -128.0 ? -128 : (zp_real >= 127.0 ? 127 : (int32_t)round(zp_real));
    const float scale_f = (float)scale, inverse = 1.0f / scale_f;
    for (int64_t i = 0; i < n; ++i) {
        const float r = roundf(inverse * x[i]);
        const int32_t v = (r >= -256.0f && r <= 256.0f ? (int32_t)r : (r > 256.0f ? 256 : -256)) + zp;
        q[i] = (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
    *zero_point = zp;
    return scale_f;
}
