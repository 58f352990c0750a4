/* xx_strided_slice_ref.c — y[i] = x[begin + i * stride] per axis, any element size (also SLICE). */
#include <string.h>

#include "kernels.h"

void xx_strided_slice_ref(int32_t rank, const int64_t *in_dims, const int32_t *begin, const int32_t *stride,
                          const int64_t *out_dims, size_t elem, const void *x, void *y) {
    int64_t in_strides[8], index[8] = {0}, count = 1, s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
    }
    for (int32_t d = 0; d < rank; ++d) count *= out_dims[d];
    const char *src = (const char *)x;
    char *dst = (char *)y;
    for (int64_t i = 0; i < count; ++i) {
        int64_t o = 0;
        for (int32_t d = 0; d < rank; ++d) o += (begin[d] + index[d] * stride[d]) * in_strides[d];
        memcpy(dst + i * elem, src + o * elem, elem);
        rl_next_index(rank, out_dims, index);
    }
}
