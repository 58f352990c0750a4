/* s8_fully_connected_ref.c — int8 fully connected, weights [units, depth], int32 bias: the reference. */
#include "kernels.h"

void s8_fully_connected_ref(int64_t batch, int32_t in_depth, int32_t units, const rl_s8_requantization *rq,
                            const int8_t *input, const int8_t *weights, const int32_t *bias, int8_t *output) {
    const int32_t zp = rq->input_zero_point;
    for (int64_t b = 0; b < batch; ++b) {
        const int8_t *x = input + b * in_depth;
        for (int32_t u = 0; u < units; ++u) {
            const int8_t *w = weights + (int64_t)u * in_depth;
            int64_t total = bias ? bias[u] : 0;
            for (int32_t k = 0; k < in_depth; ++k) total += (int32_t)(x[k] - zp) * w[k];
            output[b * units + u] = rl_requantize_fp32((int32_t)(uint32_t)total, rq->scale[u], rq);
        }
    }
}
