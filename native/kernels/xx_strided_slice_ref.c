/* xx_strided_slice_ref.c — y[i] = x[begin + i * stride] per axis, any element size (also SLICE; negative
 * strides walk backwards). The output is walked row by row (every axis but the last): a row with stride 1
 * is one memcpy, any other a strided copy. */
#include <string.h>

#include "kernels.h"

void xx_strided_slice_ref(int32_t rank, const int64_t *in_dims, const int32_t *begin, const int32_t *stride,
                          const int64_t *out_dims, size_t elem, const void *x, void *y) {
    int64_t in_strides[8], index[8] = {0}, count = 1, s = 1;
    for (int32_t d = 0; d < rank; ++d) count *= out_dims[d];
    if (rank == 0) {
        memcpy(y, x, elem);
        return;
    }
    /* Nothing to copy: return before the input's strides, whose product may overflow for an empty input with
     * huge other dimensions (a non-empty input is bounded by the plan's size checks). */
    if (count == 0) return;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
    }
    const int64_t row = out_dims[rank - 1], step = stride[rank - 1], first = begin[rank - 1];
    if (row == 0) return;
    const char *src = (const char *)x;
    char *dst = (char *)y;
    do {
        int64_t o = first;
        for (int32_t d = 0; d < rank - 1; ++d) o += (begin[d] + index[d] * stride[d]) * in_strides[d];
        rl_copy_strided_row(dst, src, o, row, step, elem);
        dst += row * (int64_t)elem;
    } while (rl_next_index(rank - 1, out_dims, index));
}
