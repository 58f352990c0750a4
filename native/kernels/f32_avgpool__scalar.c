/* f32_avgpool__scalar.c — one output pixel of float32 average pooling: the in-bounds taps summed in window
 * order, divided by their count (as TFLite: padding is not counted), clamped. */
#include "pool.h"

void f32_avgpool__scalar(size_t channels, size_t taps, const float *const *input, float *restrict output, float min,
                         float max) {
    for (size_t c = 0; c < channels; ++c) output[c] = 0.0f;
    for (size_t t = 0; t < taps; ++t) {
        const float *restrict x = input[t];
        for (size_t c = 0; c < channels; ++c) output[c] += x[c];
    }
    for (size_t c = 0; c < channels; ++c) {
        float v = taps ? output[c] / (float)taps : 0.0f;
        v = v < min ? min : v;
        output[c] = v > max ? max : v;
    }
}
