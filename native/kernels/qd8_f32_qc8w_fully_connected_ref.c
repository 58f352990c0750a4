/* qd8_f32_qc8w_fully_connected_ref.c — hybrid fully connected: float rows quantized to int8 on the fly
 * (asymmetric, per row), int8 weights with per-unit scales, float output: the scalar reference. */
#include <math.h>

#include "kernels.h"

/* XNNPACK's qd8 quantization of one row: the row's range, widened to include 0, mapped onto [-128, 127]
 * with a zero point chosen from whichever end loses less; each value is round(x * 255 / range) with ties to
 * even, plus the zero point, all in float. (TFLite's own hybrid kernels work the scale out in double and
 * round ties away from zero: f32_qs8_asymmetric_quantize_tflite_ref.c.) The hybrid CONV_2D and
 * BATCH_MATMUL quantize their rows (or whole images) with it too. */
float f32_qd8_quantize_ref(int64_t n, int64_t stride, const float *x, int8_t *q, int32_t *zero_point) {
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float v = x[i * stride];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    /* xnn_f32_qd8_asymmetric_quantization_params: the scale is the multiplier 255 / range, the zero point
     * from the products lo * scale and hi * scale (dividing by range / 255 instead rounds otherwise, which
     * moves a tied zero point, e.g. for a row spanning exactly [-1, 1]). */
    const float scale = lo == hi ? 1.0f : 255.0f / (hi - lo);
    const float lo_scaled = lo * scale, hi_scaled = hi * scale;
    float zero_point_real = (-128.0f + lo_scaled) + (127.0f + hi_scaled) > 0.0f ? -128.0f - lo_scaled
                                                                              : 127.0f - hi_scaled;
    zero_point_real = zero_point_real < -128.0f ? -128.0f : (zero_point_real > 127.0f ? 127.0f : zero_point_real);
    const int32_t zp = (int32_t)nearbyintf(zero_point_real);
    const float below = (float)(-128 - zp), above = (float)(127 - zp);
    for (int64_t i = 0; i < n; ++i) {
        float v = x[i * stride] * scale;
        v = v > below ? v : below;
        v = v < above ? v : above;
        q[i] = (int8_t)((int32_t)nearbyintf(v) + zp);
    }
    *zero_point = zp;
    return 1.0f / scale; /* the dequantizing scale, XNNPACK's inv_scale */
}

void qd8_f32_qc8w_fully_connected_ref(int64_t batch, int32_t in_depth, int32_t units, const float *input,
                                      const int8_t *weights, const float *weight_scales, const float *bias,
                                      float act_min, float act_max, int8_t *row_scratch, float *output) {
    for (int64_t b = 0; b < batch; ++b) {
        int32_t zp = 0;
        const float row_scale = f32_qd8_quantize_ref(in_depth, 1, input + b * in_depth, row_scratch, &zp);
        for (int32_t u = 0; u < units; ++u) {
            const int8_t *w = weights + (int64_t)u * in_depth;
            int32_t acc = 0;
            for (int32_t k = 0; k < in_depth; ++k) acc += (row_scratch[k] - zp) * w[k];
            /* XNNPACK's epilogue: times the row's scale, then a fused multiply-add of the weight scale and bias. */
            float y = fmaf((float)acc * row_scale, weight_scales[u], bias ? bias[u] : 0.0f);
            y = y < act_min ? act_min : y;
            output[b * units + u] = y > act_max ? act_max : y;
        }
    }
}
