/* f32_qc8_quantize_ref.c — float32 to int8 with a scale and zero point per channel: QUANTIZE of an output
 * quantized along one dimension (a trained weight quantized again per output channel).
 *
 * XNNPACK takes no per-channel QUANTIZE, so LiteRT's default Interpreter runs TFLite's reference kernel
 * (reference_ops::PerChannelQuantize): x / scale in float (a division, not the reciprocal's product),
 * rounded half away from zero (TfLiteRound), plus the zero point, clamped to int8. TFLite converts the
 * rounded value to int32 before the clamp, which is undefined past int32's range (and for NaN); here a value
 * is clamped first, so those saturate (NaN to the lower bound). */
#include <math.h>

#include "kernels.h"

void f32_qc8_quantize_ref(size_t channels, size_t inner, const float *scales, const int32_t *zero_points,
                          const float *x, int8_t *y) {
    for (size_t c = 0; c < channels; ++c) {
        const float scale = scales[c];
        const int32_t zero_point = zero_points[c];
        const float lo = (float)(-128 - zero_point), hi = (float)(127 - zero_point);
        for (size_t i = 0; i < inner; ++i, ++x, ++y) {
            float v = roundf(*x / scale);
            v = v > lo ? v : lo; /* NaN goes to the lower bound */
            v = v < hi ? v : hi;
            *y = (int8_t)((int32_t)v + zero_point);
        }
    }
}
