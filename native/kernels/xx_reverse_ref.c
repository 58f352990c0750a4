/* xx_reverse_ref.c — REVERSE_V2: the input with the marked axes (rank 8, row-major) read backwards, any
 * element size. */
#include <string.h>

#include "kernels.h"

void xx_reverse_ref(const int64_t *dims, const int32_t *reversed, size_t elem, const void *x, void *y) {
    int64_t strides[8], index[8] = {0}, count = 1;
    for (int32_t d = 7; d >= 0; --d) {
        strides[d] = count;
        count *= dims[d];
    }
    char *dst = (char *)y;
    for (int64_t i = 0; i < count; ++i, dst += elem) {
        int64_t o = 0;
        for (int32_t d = 0; d < 8; ++d) o += (reversed[d] ? dims[d] - 1 - index[d] : index[d]) * strides[d];
        memcpy(dst, (const char *)x + (size_t)o * elem, elem);
        rl_next_index(8, dims, index);
    }
}
