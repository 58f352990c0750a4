/* s8_f32_dequantize_ref.c — int8 to float32: (x - zero_point) converted to float, times the scale. */
#include "kernels.h"

void s8_f32_dequantize_ref(int64_t outer, int32_t channels, int64_t inner, const float *scales,
                           const int32_t *zero_points, const int8_t *x, float *y) {
    for (int64_t o = 0; o < outer; ++o)
        for (int32_t c = 0; c < channels; ++c) {
            const float scale = scales[c];
            const int32_t zero_point = zero_points[c];
            const int64_t base = (o * channels + c) * inner;
            for (int64_t i = 0; i < inner; ++i) y[base + i] = (float)(x[base + i] - zero_point) * scale;
        }
}
