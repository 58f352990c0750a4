/* qd8_f32_qc8w_batch_matmul_ref.c — hybrid batched matrix product: float x, int8 y with one scale (or one
 * per column of the product), float output. The scalar reference.
 *
 * LiteRT 2.3's default Interpreter hands hybrid BATCH_MATMUL to XNNPACK, which treats it as hybrid
 * FULLY_CONNECTED does: each row of x (the k values that meet one row of the output) is quantized
 * asymmetrically with f32_qd8_quantize_ref whatever asymmetric_quantize_inputs says, the integer dot
 * products scaled back by row scale * y's scale. (TFLite's own kernel quantizes rows symmetrically unless
 * asymmetric_quantize_inputs is set, and so differs from the default Interpreter.) */
#include "kernels.h"

void qd8_f32_qc8w_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                                   int32_t adj_y, const float *a, const int8_t *b, const float *b_scales,
                                   int32_t per_column, int8_t *row_scratch, float *out) {
    int64_t index[8] = {0};
    const int64_t a_size = (int64_t)m * k, b_size = (int64_t)k * n, o_size = (int64_t)m * n;
    if (o_size == 0) return; /* nothing to write (and out may have no memory) */
    for (int64_t batch = 0; batch < batches->count; ++batch) {
        int64_t a_off = 0, b_off = 0;
        for (int d = 0; d < 8; ++d) {
            a_off += index[d] * batches->a_strides[d];
            b_off += index[d] * batches->b_strides[d];
        }
        float *o = out + batch * o_size;
        if (k == 0) { /* an empty product: zeros, and a or b may have no memory at all */
            for (int64_t i = 0; i < o_size; ++i) o[i] = 0.0f;
            rl_next_index(8, batches->out_dims, index);
            continue;
        }
        const float *x = a + a_off * a_size;
        const int8_t *y = b + b_off * b_size;
        for (int32_t i = 0; i < m; ++i) {
            int32_t zp = 0;
            const float row_scale = adj_x ? f32_qd8_quantize_ref(k, m, x + i, row_scratch, &zp)
                                          : f32_qd8_quantize_ref(k, 1, x + (int64_t)i * k, row_scratch, &zp);
            for (int32_t j = 0; j < n; ++j) {
                int32_t acc = 0;
                for (int32_t p = 0; p < k; ++p) {
                    const int8_t yv = adj_y ? y[(int64_t)j * k + p] : y[(int64_t)p * n + j];
                    acc += (row_scratch[p] - zp) * yv;
                }
                o[(int64_t)i * n + j] = (float)acc * row_scale * b_scales[per_column ? j : 0]; /* XNNPACK's order */
            }
        }
        rl_next_index(8, batches->out_dims, index);
    }
}
