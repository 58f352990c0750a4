/* xx_reduce_prod_any_ref.c — REDUCE_PROD of float32 or int32 values and REDUCE_ANY / REDUCE_ALL of bools over
 * marked axes (rank 8, row-major), walking the input in order as TFLite's ReduceGeneric does: each output starts
 * at the identity (1, false for ANY, true for ALL) and takes the input's elements one by one. */
#include "kernels.h"

void xx_reduce_prod_any_ref(int32_t dtype, int32_t bool_all, const int64_t *dims, const int32_t *reduced,
                            const void *x, void *y, int64_t out_count) {
    int64_t out_strides[8];
    const int64_t in_count = rl_reduce_output_strides(dims, reduced, out_strides);
    for (int64_t i = 0; i < out_count; ++i) {
        if (dtype == 0) ((float *)y)[i] = 1.0f;
        else if (dtype == 2) ((int32_t *)y)[i] = 1;
        else ((uint8_t *)y)[i] = bool_all ? 1 : 0;
    }
    int64_t index[8] = {0};
    for (int64_t i = 0; i < in_count; ++i) {
        int64_t o = 0;
        for (int d = 0; d < 8; ++d) o += index[d] * out_strides[d];
        if (dtype == 0) ((float *)y)[o] *= ((const float *)x)[i];
        else if (dtype == 2) ((int32_t *)y)[o] = (int32_t)((uint32_t)((int32_t *)y)[o] * (uint32_t)((const int32_t *)x)[i]);
        else if (bool_all) ((uint8_t *)y)[o] = (uint8_t)(((uint8_t *)y)[o] & (((const uint8_t *)x)[i] != 0));
        else ((uint8_t *)y)[o] = (uint8_t)(((uint8_t *)y)[o] | (((const uint8_t *)x)[i] != 0));
        rl_next_index(8, dims, index);
    }
}
