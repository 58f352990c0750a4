/* f32_maxpool__scalar.c — one output pixel of float32 max pooling: out[c] = the largest of taps[t][c] over the
 * window's in-bounds taps, clamped to the fused activation (no tap: the lowest float, clamped). NaN never wins,
 * as in the whole-op loop it replaces. The channel loop is innermost, so the compiler vectorises it. */
#include <float.h>

#include "pool.h"

void f32_maxpool__scalar(size_t channels, size_t taps, const float *const *input, float *restrict output, float min,
                         float max) {
    for (size_t c = 0; c < channels; ++c) output[c] = -FLT_MAX;
    for (size_t t = 0; t < taps; ++t) {
        const float *restrict x = input[t];
        for (size_t c = 0; c < channels; ++c) output[c] = x[c] > output[c] ? x[c] : output[c];
    }
    for (size_t c = 0; c < channels; ++c) {
        const float v = output[c] < min ? min : output[c];
        output[c] = v > max ? max : v;
    }
}
