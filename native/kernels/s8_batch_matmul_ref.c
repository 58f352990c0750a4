/* s8_batch_matmul_ref.c — int8 batched matrix product (broadcast batch dims, adjoints), requantized with
 * rl_requantize_fp32 (one scale: both operands are quantized per tensor); y's zero point is 0. */
#include "kernels.h"

void s8_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                         int32_t adj_y, const rl_s8_requantization *rq, const int8_t *a, const int8_t *b,
                         int8_t *out) {
    int64_t index[8] = {0};
    const int64_t a_size = (int64_t)m * k, b_size = (int64_t)k * n, o_size = (int64_t)m * n;
    const int32_t zp = rq->input_zero_point;
    for (int64_t batch = 0; batch < batches->count; ++batch) {
        int64_t a_off = 0, b_off = 0;
        for (int d = 0; d < 8; ++d) {
            a_off += index[d] * batches->a_strides[d];
            b_off += index[d] * batches->b_strides[d];
        }
        const int8_t *x = a + a_off * a_size;
        const int8_t *y = b + b_off * b_size;
        int8_t *o = out + batch * o_size;
        for (int32_t i = 0; i < m; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                int64_t total = 0;
                for (int32_t p = 0; p < k; ++p) {
                    const int32_t xv = adj_x ? x[(int64_t)p * m + i] : x[(int64_t)i * k + p];
                    const int32_t yv = adj_y ? y[(int64_t)j * k + p] : y[(int64_t)p * n + j];
                    total += (xv - zp) * yv;
                }
                o[(int64_t)i * n + j] = rl_requantize_fp32((int32_t)(uint32_t)total, rq->scale[0], rq);
            }
        }
        rl_next_index(8, batches->out_dims, index);
    }
}
