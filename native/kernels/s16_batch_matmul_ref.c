/* s16_batch_matmul_ref.c — BATCH_MATMUL in TFLite's 16x8 mode: int16 x, int8 or int16 y, int16 output, every zero
 * point 0 (broadcast batch dims, adjoints). LiteRT's default Interpreter runs TFLite's builtin kernel for it
 * (XNNPACK takes no int16 BATCH_MATMUL; its reference and optimized kernels agree), measured against LiteRT 2.3
 * with ties and sums past 2^31: a 64-bit accumulator, then TFLite's 64-bit MultiplyByQuantizedMultiplier, which
 * first rounds the multiplier to 16 bits and then rounds once (ties up), with the multiplier of
 * (double)(float)(x_scale * y_scale) / (double)output_scale; clamped to int16. */
#include "kernels.h"
#include "quant.h"

void s16_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x, int32_t adj_y,
                          int32_t multiplier, int32_t shift, const int16_t *a, const void *b, int32_t b_is_int8,
                          int16_t *out) {
    int64_t index[8] = {0};
    const int64_t a_size = (int64_t)m * k, b_size = (int64_t)k * n, o_size = (int64_t)m * n;
    for (int64_t batch = 0; batch < batches->count; ++batch) {
        int64_t a_off = 0, b_off = 0;
        for (int d = 0; d < 8; ++d) {
            a_off += index[d] * batches->a_strides[d];
            b_off += index[d] * batches->b_strides[d];
        }
        const int16_t *x = a + a_off * a_size;
        const int8_t *y8 = (const int8_t *)b + b_off * b_size;
        const int16_t *y16 = (const int16_t *)b + b_off * b_size;
        int16_t *o = out + batch * o_size;
        for (int32_t i = 0; i < m; ++i) {
            for (int32_t j = 0; j < n; ++j) {
                int64_t total = 0;
                for (int32_t q = 0; q < k; ++q) {
                    const int64_t at = adj_y ? (int64_t)j * k + q : (int64_t)q * n + j;
                    const int32_t xv = adj_x ? x[(int64_t)q * m + i] : x[(int64_t)i * k + q];
                    total += (int64_t)xv * (b_is_int8 ? y8[at] : y16[at]);
                }
                const int32_t v = rl_mul_by_quantized_multiplier_64(total, multiplier, shift);
                o[(int64_t)i * n + j] = (int16_t)rl_clamp_i32(v, -32768, 32767);
            }
        }
        rl_next_index(8, batches->out_dims, index);
    }
}
