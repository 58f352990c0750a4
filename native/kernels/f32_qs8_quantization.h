/* f32_qs8_quantization.h — the scale and zero point that a range gives in the hybrid ops' two input
 * quantizations (qd8_gemm.h), inline: a per-pixel layer quantizes thousands of rows of a few values, where
 * a call per row to work them out cost a quarter of the layer. rl_qd8_quantization_of_range and
 * rl_tflite_quantization_of_range are these, out of line. */
#ifndef RILLET_F32_QS8_QUANTIZATION_H
#define RILLET_F32_QS8_QUANTIZATION_H

#include <math.h>

#include "qd8_gemm.h"

/* xnn_f32_qd8_asymmetric_quantization_params, as f32_qd8_quantize_ref computes it. */
static inline rl_f32_qs8_quantization rl_qd8_quantization_of(float lo, float hi) {
    const float scale = lo == hi ? 1.0f : 255.0f / (hi - lo);
    const float lo_scaled = lo * scale, hi_scaled = hi * scale;
    float zero_point_real = (-128.0f + lo_scaled) + (127.0f + hi_scaled) > 0.0f ? -128.0f - lo_scaled
                                                                              : 127.0f - hi_scaled;
    zero_point_real = zero_point_real < -128.0f ? -128.0f : (zero_point_real > 127.0f ? 127.0f : zero_point_real);
    return (rl_f32_qs8_quantization){.multiplier = scale, .scale = 1.0f / scale,
                                     .zero_point = (int32_t)nearbyintf(zero_point_real)};
}

/* TFLite's AsymmetricQuantizeFloats, as f32_qs8_asymmetric_quantize_tflite_ref computes it. */
static inline rl_f32_qs8_quantization rl_tflite_quantization_of(float lo, float hi) {
    if (lo == hi) return (rl_f32_qs8_quantization){.multiplier = 0.0f, .scale = 1.0f, .zero_point = 0, .all_zero = 1};
    const double rmin = lo, rmax = hi, scale = (double)(hi - lo) / 255.0;
    const double from_min = -128.0 - rmin / scale, from_max = 127.0 - rmax / scale;
    const double from_min_error = 128.0 + fabs(rmin / scale), from_max_error = 127.0 + fabs(rmax / scale);
    const double zp_real = from_min_error < from_max_error ? from_min : from_max;
    /* NaN from an infinite range: 0, as f32_qs8_asymmetric_quantize_tflite_ref says. */
    const int32_t zp = zp_real != zp_real ? 0
                       : zp_real <= -128.0 ? -128 : (zp_real >= 127.0 ? 127 : (int32_t)round(zp_real));
    const float scale_f = (float)scale;
    return (rl_f32_qs8_quantization){.multiplier = 1.0f / scale_f, .scale = scale_f, .zero_point = zp};
}

/* A row quantized in one step on a SIMD path: its range (the file's rminmax), the quantization that range gives
 * (rl_qd8_quantization_of or rl_tflite_quantization_of), then the values (the file's values function); the
 * row's scale returned, its zero point stored. */
#define RL_F32_QS8_QUANTIZE_ONE_STEP(name, rminmax, quantization_of, values)                                   \
    float name(int64_t n, const float *x, int8_t *q, int32_t *zero_point) {                                    \
        float lo = 0.0f, hi = 0.0f;                                                                             \
        rminmax(n, x, &lo, &hi);                                                                                \
        const rl_f32_qs8_quantization p = quantization_of(lo, hi);                                              \
        values(n, x, q, &p);                                                                                    \
        *zero_point = p.zero_point;                                                                             \
        return p.scale;                                                                                         \
    }

#endif
