/* xx_transpose_ref.c — permute the axes of a tensor of any element size. */
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
    const char *src = (const char *)x;
    char *dst = (char *)y;
    for (int64_t i = 0; i < count; ++i) {
        int64_t o = 0;
        for (int32_t d = 0; d < rank; ++d) o += index[d] * strides[d];
        memcpy(dst + i * elem, src + o * elem, elem);
        rl_next_index(rank, out_dims, index);
    }
}
