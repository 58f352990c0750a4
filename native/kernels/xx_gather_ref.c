/* xx_gather_ref.c — y[o, i, n] = x[o, indices[i], n], any element size; rejects out-of-range indices. */
#include <string.h>

#include "kernels.h"

int xx_gather_ref(int64_t outer, int64_t axis_size, int64_t inner, int64_t n_indices, const void *indices,
                  int32_t indices_are_int64, size_t elem, const void *x, void *y) {
    const char *src = (const char *)x;
    char *dst = (char *)y;
    const size_t block = (size_t)inner * elem;
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < n_indices; ++i) {
            const int64_t k = indices_are_int64 ? ((const int64_t *)indices)[i] : ((const int32_t *)indices)[i];
            if (k < 0 || k >= axis_size) return 1;
            memcpy(dst + (o * n_indices + i) * block, src + (o * axis_size + k) * block, block);
        }
    }
    return 0;
}
