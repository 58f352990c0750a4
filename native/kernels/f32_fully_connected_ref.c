/* f32_fully_connected_ref.c — float32 y = x W^T + b with W [units, in_depth], then the activation clamp. */
#include "kernels.h"

void f32_fully_connected_ref(int64_t batch, int32_t in_depth, int32_t units, const float *input,
                             const float *weights, const float *bias, float act_min, float act_max,
                             float *output) {
    for (int64_t b = 0; b < batch; ++b) {
        const float *x = input + b * in_depth;
        for (int32_t u = 0; u < units; ++u) {
            const float *w = weights + (int64_t)u * in_depth;
            float total = 0.0f;
            for (int32_t d = 0; d < in_depth; ++d) total += x[d] * w[d];
            if (bias) total += bias[u];
            total = total < act_min ? act_min : total;
            output[b * units + u] = total > act_max ? act_max : total;
        }
    }
}
