/* qs8_maxpool__scalar.c — one output pixel of int8 max pooling over the in-bounds taps, clamped to
 * [min, max] in the output's integers (input and output share their quantization). */
#include "pool.h"

void qs8_maxpool__scalar(size_t channels, size_t taps, const int8_t *const *input, int8_t *restrict output,
                         int32_t min, int32_t max) {
    for (size_t c = 0; c < channels; ++c) output[c] = -128;
    for (size_t t = 0; t < taps; ++t) {
        const int8_t *restrict x = input[t];
        for (size_t c = 0; c < channels; ++c) output[c] = x[c] > output[c] ? x[c] : output[c];
    }
    for (size_t c = 0; c < channels; ++c)
        output[c] = (int8_t)(output[c] < min ? min : (output[c] > max ? max : output[c]));
}
