/* xx_pad_ref.c — constant padding of a tensor of any element size. */
#include <string.h>

#include "kernels.h"

void xx_pad_ref(int32_t rank, const int64_t *in_dims, const int32_t *before, const int64_t *out_dims,
                size_t elem, const void *pad_value, const void *x, void *y) {
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
        int inside = 1;
        for (int32_t d = 0; d < rank; ++d) {
            const int64_t k = index[d] - before[d];
            if (k < 0 || k >= in_dims[d]) {
                inside = 0;
                break;
            }
            o += k * in_strides[d];
        }
        memcpy(dst + i * elem, inside ? src + o * elem : (const char *)pad_value, elem);
        rl_next_index(rank, out_dims, index);
    }
}
