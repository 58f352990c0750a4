/* f32_batch_matmul_ref.c — float32 batched matrix product with broadcast batch dims and adjoints. */
#include "kernels.h"

void f32_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                          int32_t adj_y, const float *a, const float *b, float *out) {
    int64_t index[8] = {0};
    const int64_t a_size = (int64_t)m * k, b_size = (int64_t)k * n, o_size = (int64_t)m * n;
    for (int64_t batch = 0; batch < batches->count; ++batch) {
        int64_t a_off = 0, b_off = 0;
        for (int d = 0; d < 8; ++d) {
            a_off += index[d] * batches->a_strides[d];
            b_off += index[d] * batches->b_strides[d];
        }
        const float *x = a + a_off * a_size;
        const float *y = b + b_off * b_size;
        float *o = out + batch * o_size;
        for (int32_t i = 0; i < m; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                float total = 0.0f;
                for (int32_t p = 0; p < k; ++p) {
                    const float xv = adj_x ? x[(int64_t)p * m + i] : x[(int64_t)i * k + p];
                    const float yv = adj_y ? y[(int64_t)j * k + p] : y[(int64_t)p * n + j];
                    total += xv * yv;
                }
                o[(int64_t)i * n + j] = total;
            }
        }
        rl_next_index(8, batches->out_dims, index);
    }
}
