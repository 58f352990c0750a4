/* f32_softmax_ref.c — float32 softmax over the last axis, max subtracted first as TFLite (log-softmax:
 * f32_log_softmax_ref.c). */
#include <math.h>

#include "kernels.h"

void f32_softmax_ref(int64_t rows, int32_t depth, float beta, const float *x, float *y) {
    for (int64_t r = 0; r < rows; ++r) {
        const float *in = x + r * depth;
        float *out = y + r * depth;
        float max = in[0];
        for (int32_t i = 1; i < depth; ++i) max = in[i] > max ? in[i] : max;
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; ++i) {
            out[i] = expf((in[i] - max) * beta);
            sum += out[i];
        }
        for (int32_t i = 0; i < depth; ++i) out[i] = out[i] / sum;
    }
}
