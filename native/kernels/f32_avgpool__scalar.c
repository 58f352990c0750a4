/* f32_avgpool__scalar.c — one output pixel of float32 average pooling in XNNPACK's arithmetic (pool.h): the
 * window's taps nine at a time, each group summed in XNNPACK's tree and added to the total (missing taps of
 * the last group read 0), the total times `scale`, clamped. */
#include "pool.h"

void f32_avgpool__scalar(size_t channels, size_t taps, const float *const *input, float scale, float *output,
                         float min, float max) {
    for (size_t c = 0; c < channels; ++c) {
        float total = 0.0f;
        for (size_t t = 0; t < taps; t += 9) {
            float x[9];
            for (size_t k = 0; k < 9; ++k) x[k] = t + k < taps ? input[t + k][c] : 0.0f;
            total = total + f32_avgpool_sum9(x);
        }
        float v = total * scale;
        v = v < min ? min : v;
        output[c] = v > max ? max : v;
    }
}
