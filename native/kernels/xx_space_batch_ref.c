/* xx_space_batch_ref.c — SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND over `m` spatial axes after the batch, any
 * element size; each element moves a contiguous run of inner_bytes (the axes after the spatial ones).
 * to_batch: output batch (shift * in_batch + b) holds input pixel o * block + shift - pad_before, or
 * pad_value outside the input (8 bytes: the element repeated). Otherwise the inverse, pad_before the crops. */
#include <string.h>

#include "kernels.h"

void xx_space_batch_ref(int32_t to_batch, int32_t m, int64_t in_batch, const int64_t *in_spatial,
                        int64_t out_batch, const int64_t *out_spatial, const int32_t *block, const int32_t *pad_before,
                        size_t inner_bytes, const void *pad_value, const void *x, void *y) {
    int64_t dims[9], index[9] = {0}, count = out_batch, in_pos[8];
    dims[0] = out_batch;
    for (int32_t d = 0; d < m; ++d) {
        dims[d + 1] = out_spatial[d];
        count *= out_spatial[d];
    }
    char *dst = (char *)y;
    const char *src = (const char *)x, *pad = (const char *)pad_value;
    for (int64_t i = 0; i < count; ++i, dst += inner_bytes) {
        int64_t batch, shift, inside = 1;
        if (to_batch) {
            batch = index[0] % in_batch;
            shift = index[0] / in_batch;
            for (int32_t d = m - 1; d >= 0; --d) {
                in_pos[d] = index[d + 1] * block[d] + shift % block[d] - pad_before[d];
                shift /= block[d];
                if (in_pos[d] < 0 || in_pos[d] >= in_spatial[d]) inside = 0;
            }
        } else {
            shift = 0;
            for (int32_t d = 0; d < m; ++d) {
                const int64_t p = index[d + 1] + pad_before[d];
                shift = shift * block[d] + p % block[d];
                in_pos[d] = p / block[d];
            }
            batch = shift * out_batch + index[0];
        }
        if (!inside) {
            for (size_t k = 0; k < inner_bytes; k += 1) dst[k] = pad[k % 8];
        } else {
            int64_t o = batch;
            for (int32_t d = 0; d < m; ++d) o = o * in_spatial[d] + in_pos[d];
            memcpy(dst, src + (size_t)o * inner_bytes, inner_bytes);
        }
        rl_next_index(m + 1, dims, index);
    }
}
