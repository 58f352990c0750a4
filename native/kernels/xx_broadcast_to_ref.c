/* xx_broadcast_to_ref.c — BROADCAST_TO: out[i] = x[sum(index[d] * strides[d])] over rank-8 output dims,
 * strides 0 on the axes the input repeats along; any element size. */
#include <string.h>

#include "kernels.h"

void xx_broadcast_to_ref(const int64_t *out_dims, const int64_t *strides, size_t elem, const void *x, void *y) {
    int64_t index[8] = {0}, count = 1;
    for (int32_t d = 0; d < 8; ++d) count *= out_dims[d];
    char *dst = (char *)y;
    for (int64_t i = 0; i < count; ++i, dst += elem) {
        int64_t o = 0;
        for (int32_t d = 0; d < 8; ++d) o += index[d] * strides[d];
        memcpy(dst, (const char *)x + (size_t)o * elem, elem);
        rl_next_index(8, out_dims, index);
    }
}
