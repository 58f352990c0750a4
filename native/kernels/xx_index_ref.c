/* xx_index_ref.c — the n-d row-major counter and the strided row copy the data-movement kernels share. */
#include <string.h>

#include "kernels.h"

int rl_next_index(int32_t rank, const int64_t *dims, int64_t *index) {
    for (int32_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) return 1;
        index[d] = 0;
    }
    return 0;
}

void rl_copy_strided_row(char *dst, const char *src, int64_t first, int64_t row, int64_t step, size_t elem) {
    if (step == 1) {
        memcpy(dst, src + first * (int64_t)elem, (size_t)row * elem);
    } else if (elem == 4) { /* a constant-size memcpy: one load and store, whatever the alignment */
        const char *from = src + first * 4;
        for (int64_t j = 0; j < row; ++j) memcpy(dst + j * 4, from + j * step * 4, 4);
    } else {
        for (int64_t j = 0; j < row; ++j) memcpy(dst + j * (int64_t)elem, src + (first + j * step) * (int64_t)elem, elem);
    }
}
