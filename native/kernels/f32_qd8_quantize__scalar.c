/* f32_qd8_quantize__scalar.c — the hybrid ops' input quantizations in three steps (qd8_gemm.h), scalar: the
 * range, the quantization it gives, the values. Each step is the one-step references' own code
 * (f32_qd8_quantize_ref, XNNPACK's; f32_qs8_asymmetric_quantize_tflite_ref, TFLite's), cut where an image
 * split across threads needs its whole range before any value is rounded. */
#include <math.h>
#include <string.h>

#include "f32_qs8_quantization.h"
#include "kernels.h"

void f32_rminmax__scalar(int64_t n, const float *x, float *lo, float *hi) {
    float a = *lo, b = *hi;
    for (int64_t i = 0; i < n; ++i) {
        a = x[i] < a ? x[i] : a;
        b = x[i] > b ? x[i] : b;
    }
    *lo = a, *hi = b;
}

rl_f32_qs8_quantization rl_qd8_quantization_of_range(float lo, float hi) { return rl_qd8_quantization_of(lo, hi); }

rl_f32_qs8_quantization rl_tflite_quantization_of_range(float lo, float hi) {
    return rl_tflite_quantization_of(lo, hi);
}

void f32_qd8_quantize_values__scalar(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    const int32_t zp = p->zero_point;
    const float below = (float)(-128 - zp), above = (float)(127 - zp);
    for (int64_t i = 0; i < n; ++i) {
        float v = x[i] * p->multiplier;
        v = v > below ? v : below;
        v = v < above ? v : above;
        q[i] = (int8_t)((int32_t)nearbyintf(v) + zp);
    }
}

void f32_qs8_quantize_values_tflite__scalar(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    if (p->all_zero) {
        memset(q, 0, (size_t)n);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {  /* a NaN the lowest, as in f32_qs8_asymmetric_quantize_tflite_ref */
        const float r = roundf(p->multiplier * x[i]);
        const int32_t v = (r >= -256.0f && r <= 256.0f ? (int32_t)r : (r > 256.0f ? 256 : -256)) + p->zero_point;
        q[i] = (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
}
