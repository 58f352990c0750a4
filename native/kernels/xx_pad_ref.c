/* xx_pad_ref.c — constant padding of a tensor of any element size. The output is walked row by row (every
 * axis but the last): a row outside the input on some axis is all padding, any other is padding, one
 * memcpy of the input's row, padding. */
#include <string.h>

#include "kernels.h"

static void fill(char *dst, int64_t n, size_t elem, const void *pad_value) {
    for (int64_t j = 0; j < n; ++j) memcpy(dst + j * (int64_t)elem, pad_value, elem);
}

void xx_pad_ref(int32_t rank, const int64_t *in_dims, const int32_t *before, const int64_t *out_dims,
                size_t elem, const void *pad_value, const void *x, void *y) {
    int64_t in_strides[8], index[8] = {0}, count = 1, s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
    }
    for (int32_t d = 0; d < rank; ++d) count *= out_dims[d];
    if (rank == 0) {
        memcpy(y, x, elem);
        return;
    }
    const int64_t row = out_dims[rank - 1], lead = before[rank - 1], width = in_dims[rank - 1];
    if (count == 0 || row == 0) return;
    const char *src = (const char *)x;
    char *dst = (char *)y;
    do {
        int64_t o = 0;
        int inside = 1;
        for (int32_t d = 0; d < rank - 1 && inside; ++d) {
            const int64_t k = index[d] - before[d];
            inside = k >= 0 && k < in_dims[d];
            o += k * in_strides[d];
        }
        if (inside) {
            fill(dst, lead, elem, pad_value);
            memcpy(dst + lead * (int64_t)elem, src + o * (int64_t)elem, (size_t)width * elem);
            fill(dst + (lead + width) * (int64_t)elem, row - lead - width, elem, pad_value);
        } else {
            fill(dst, row, elem, pad_value);
        }
        dst += row * (int64_t)elem;
    } while (rl_next_index(rank - 1, out_dims, index));
}
