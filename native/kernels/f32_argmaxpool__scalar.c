/* f32_argmaxpool__scalar.c — one output pixel of MediaPipe's MaxPoolingWithArgmax2D as LiteRT runs it (its
 * XNNPACK delegate's argmax pooling): out[c] is the largest of taps[t][c] and index[c] the first tap t that
 * holds it. The first tap seeds both, and a later tap wins only when strictly greater, so ties keep the
 * earliest tap and a NaN seed stays (XNNPACK's rule, not MediaPipe's own kernel, which seeds with the lowest
 * float). The driver orders the taps and clamps them into the image (ops/mediapipe_pooling.c). */
#include "pool.h"

void f32_argmaxpool__scalar(size_t channels, size_t taps, const float *const *input, float *restrict output,
                            uint32_t *restrict index) {
    const float *restrict first = input[0];
    for (size_t c = 0; c < channels; ++c) {
        output[c] = first[c];
        index[c] = 0;
    }
    for (size_t t = 1; t < taps; ++t) {
        const float *restrict x = input[t];
        for (size_t c = 0; c < channels; ++c)
            if (x[c] > output[c]) {
                output[c] = x[c];
                index[c] = (uint32_t)t;
            }
    }
}
