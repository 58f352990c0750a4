/* xx_mirror_pad_ref.c — MIRROR_PAD, any element size: an output index before or after an axis reads its
 * mirror inside, REFLECT leaving the edge out (pad < n), SYMMETRIC repeating it (pad <= n). */
#include <string.h>

#include "kernels.h"

static int64_t mirror(int64_t k, int64_t n, int32_t symmetric) {
    if (k < 0) return symmetric ? -k - 1 : -k;
    if (k >= n) return symmetric ? 2 * n - 1 - k : 2 * n - 2 - k;
    return k;
}

void xx_mirror_pad_ref(int32_t rank, const int64_t *in_dims, const int32_t *before, const int64_t *out_dims,
                       int32_t symmetric, size_t elem, const void *x, void *y) {
    int64_t in_strides[8], index[8] = {0}, count = 1, s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
    }
    for (int32_t d = 0; d < rank; ++d) count *= out_dims[d];
    char *dst = (char *)y;
    for (int64_t i = 0; i < count; ++i, dst += elem) {
        int64_t o = 0;
        for (int32_t d = 0; d < rank; ++d) o += mirror(index[d] - before[d], in_dims[d], symmetric) * in_strides[d];
        memcpy(dst, (const char *)x + (size_t)o * elem, elem);
        rl_next_index(rank, out_dims, index);
    }
}
