/* xx_index_ref.c — the n-d row-major counter the data-movement kernels share. */
#include "kernels.h"

int rl_next_index(int32_t rank, const int64_t *dims, int64_t *index) {
    for (int32_t d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) return 1;
        index[d] = 0;
    }
    return 0;
}
