/* f32_reduce_sum_ref.c — float32 sum over marked axes (rank 8, row-major), then times 1.0f / divisor (n for
 * MEAN: XNNPACK's scale, ops/reduce.c). */
#include "kernels.h"

void f32_reduce_sum_ref(const int64_t *dims, const int32_t *reduced, float divisor, const float *x, float *y,
                        int64_t out_count) {
    int64_t out_strides[8];
    const int64_t in_count = rl_reduce_output_strides(dims, reduced, out_strides);
    for (int64_t i = 0; i < out_count; ++i) y[i] = 0.0f;
    int64_t index[8] = {0};
    for (int64_t i = 0; i < in_count; ++i) {
        int64_t o = 0;
        for (int d = 0; d < 8; ++d) o += index[d] * out_strides[d];
        y[o] += x[i];
        rl_next_index(8, dims, index);
    }
    if (divisor != 1.0f) {
        const float scale = 1.0f / divisor;
        for (int64_t i = 0; i < out_count; ++i) y[i] = y[i] * scale;
    }
}
