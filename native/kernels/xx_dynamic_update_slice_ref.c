/* xx_dynamic_update_slice_ref.c — DYNAMIC_UPDATE_SLICE of any element size (rank 8, row-major): y is x with
 * the block update written at starts (already clamped so the block fits, as TFLite's ClampStartIndices does).
 * The block's innermost dimension is one contiguous run in both, so it goes by memcpy. */
#include <string.h>

#include "kernels.h"

void xx_dynamic_update_slice_ref(const int64_t *dims, const int64_t *update_dims, const int64_t *starts, size_t elem,
                                 const void *x, const void *update, void *y) {
    int64_t total = 1, rows = 1;
    for (int d = 0; d < 8; ++d) total *= dims[d];
    for (int d = 0; d < 7; ++d) rows *= update_dims[d];
    if (x != y) memcpy(y, x, (size_t)total * elem);
    const size_t run = (size_t)update_dims[7] * elem;
    if (rows == 0 || run == 0) return;
    int64_t strides[8];
    strides[7] = 1;
    for (int d = 6; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
    int64_t index[8] = {0};
    const uint8_t *u = (const uint8_t *)update;
    for (int64_t r = 0; r < rows; ++r) {
        int64_t o = starts[7];
        for (int d = 0; d < 7; ++d) o += (starts[d] + index[d]) * strides[d];
        memcpy((uint8_t *)y + (size_t)o * elem, u + (size_t)r * run, run);
        rl_next_index(7, update_dims, index);
    }
}
