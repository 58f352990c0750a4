/* s8_batch_matmul_ref.c — int8 batched matrix product (broadcast batch dims, adjoints), any zero point on
 * either operand: the specification of ops/batch_matmul_int8.c. Each output is the exact sum of
 * (x - x_zero_point) * (y - y_zero_point) over k in 32-bit arithmetic, requantized as LiteRT's default
 * Interpreter does for that form (rl_s8_batch_matmul_requantize: XNNPACK's float scale where y's zero point
 * is 0, TFLite's fixed-point multiplier otherwise). */
#include "kernels.h"

void s8_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                         int32_t adj_y, const rl_s8_batch_matmul_params *p, const int8_t *a, const int8_t *b,
                         int8_t *out) {
    int64_t index[8] = {0};
    const int64_t a_size = (int64_t)m * k, b_size = (int64_t)k * n, o_size = (int64_t)m * n;
    const int32_t zx = p->x_zero_point, zy = p->y_zero_point;
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
                uint32_t total = 0; /* modulo 2^32, as both runtimes' int32 accumulators */
                for (int32_t q = 0; q < k; ++q) {
                    const int32_t xv = adj_x ? x[(int64_t)q * m + i] : x[(int64_t)i * k + q];
                    const int32_t yv = adj_y ? y[(int64_t)j * k + q] : y[(int64_t)q * n + j];
                    total += (uint32_t)((xv - zx) * (yv - zy));
                }
                o[(int64_t)i * n + j] = rl_s8_batch_matmul_requantize((int32_t)total, p);
            }
        }
        rl_next_index(8, batches->out_dims, index);
    }
}
