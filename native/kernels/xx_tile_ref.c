/* xx_tile_ref.c — TILE: the input repeated multiples[d] times along each axis, any element size. Each
 * output row (the last axis) is the input's row copied multiples[rank - 1] times. */
#include <string.h>

#include "kernels.h"

void xx_tile_ref(int32_t rank, const int64_t *in_dims, const int64_t *multiples, size_t elem, const void *x,
                 void *y) {
    int64_t in_strides[8], out_dims[8], index[8] = {0}, rows = 1, s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
        out_dims[d] = in_dims[d] * multiples[d];
    }
    if (rank == 0) {
        memcpy(y, x, elem);
        return;
    }
    for (int32_t d = 0; d < rank - 1; ++d) rows *= out_dims[d];
    const size_t row_bytes = (size_t)in_dims[rank - 1] * elem;
    char *dst = (char *)y;
    for (int64_t r = 0; r < rows && s > 0; ++r) {
        int64_t o = 0;
        for (int32_t d = 0; d < rank - 1; ++d) o += (index[d] % in_dims[d]) * in_strides[d];
        for (int64_t m = 0; m < multiples[rank - 1]; ++m, dst += row_bytes)
            memcpy(dst, (const char *)x + (size_t)o * elem, row_bytes);
        rl_next_index(rank - 1, out_dims, index);
    }
}
