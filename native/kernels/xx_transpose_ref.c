/* xx_transpose_ref.c — permute the axes of a tensor of any element size. The output is walked row by row
 * (every axis but the last); along a row the input moves by one fixed stride, so the inner loop is a plain
 * strided copy (rl_copy_strided_row, shared with STRIDED_SLICE). */
#include <string.h>

#include "kernels.h"

void xx_transpose_ref(int32_t rank, const int64_t *in_dims, const int32_t *perm, size_t elem, const void *x,
                      void *y) {
    int64_t in_strides[8], out_dims[8], strides[8], index[8] = {0}, count = 1;
    int64_t s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
    }
    for (int32_t d = 0; d < rank; ++d) {
        out_dims[d] = in_dims[perm[d]];
        strides[d] = in_strides[perm[d]];
        count *= out_dims[d];
    }
    if (rank == 0) {
        memcpy(y, x, elem);
        return;
    }
    const int64_t row = out_dims[rank - 1], step = strides[rank - 1];
    if (count == 0 || row == 0) return;
    const char *src = (const char *)x;
    char *dst = (char *)y;
    do {
        int64_t o = 0;
        for (int32_t d = 0; d < rank - 1; ++d) o += index[d] * strides[d];
        rl_copy_strided_row(dst, src, o, row, step, elem);
        dst += row * (int64_t)elem;
    } while (rl_next_index(rank - 1, out_dims, index));
}
