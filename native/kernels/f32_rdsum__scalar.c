/* f32_rdsum__scalar.c — float32 sum over the middle axis of a [reduced, channels] slice whose rows lie
 * row_stride floats apart (channels of them, or a block of a wider row's channels):
 * y[c] = sum over r ascending of x[r * row_stride + c] (y is overwritten). Each output adds its terms in input
 * order, as f32_reduce_sum_ref does, so the two agree to the bit; the channel loop is innermost and
 * contiguous, which the compiler vectorises without reordering any sum. */
#include "kernels.h"

void f32_rdsum__scalar(size_t reduced, size_t channels, size_t row_stride, const float *restrict x,
                       float *restrict y) {
    for (size_t c = 0; c < channels; ++c) y[c] = 0.0f;
    for (size_t r = 0; r < reduced; ++r) {
        const float *row = x + r * row_stride;
        for (size_t c = 0; c < channels; ++c) y[c] += row[c];
    }
}
