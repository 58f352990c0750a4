/* f32_unpool__scalar.c — one input pixel of MediaPipe's MaxUnpooling2D: its value goes to the output pixel of
 * its window that index[c] names (a tap number, as f32_argmaxpool__scalar writes it), every other output
 * pixel of the window gets 0. An index past the window writes nowhere (XNNPACK's kernel would write out of
 * bounds; MediaPipe's skips it too), so the window stays zero. */
#include "pool.h"

void f32_unpool__scalar(size_t channels, size_t taps, const float *input, const uint32_t *index,
                        float *const *output) {
    for (size_t t = 0; t < taps; ++t) {
        float *restrict y = output[t];
        for (size_t c = 0; c < channels; ++c) y[c] = index[c] == (uint32_t)t ? input[c] : 0.0f;
    }
}
