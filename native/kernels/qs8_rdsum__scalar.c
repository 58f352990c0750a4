/* qs8_rdsum__scalar.c — int8 sum over the middle axis of a [reduced, channels] slice into int32:
 * acc[c] = sum over r of x[r * channels + c] (acc is overwritten). Integer sums: any order gives s8_reduce_ref's. */
#include "kernels.h"

void qs8_rdsum__scalar(size_t reduced, size_t channels, const int8_t *restrict x, int32_t *restrict acc) {
    for (size_t c = 0; c < channels; ++c) acc[c] = 0;
    for (size_t r = 0; r < reduced; ++r) {
        const int8_t *row = x + r * channels;
        for (size_t c = 0; c < channels; ++c) acc[c] += row[c];
    }
}
