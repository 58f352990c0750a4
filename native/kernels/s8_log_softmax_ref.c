/* s8_log_softmax_ref.c — int8 LOG_SOFTMAX over the last axis as TFLite's optimized builtin computes it.
 *
 * LiteRT's default Interpreter runs TFLite's optimized LogSoftmax for int8 (XNNPACK does not take it), not
 * the reference integer kernel: on a near-tie (true value 96.500005) the reference gives 96 and the
 * default 97. The optimized kernel works in float32 from the same exponential table as SOFTMAX:
 * exp_table[255 - d] = expf(-input_scale * d); per row sum (in order), logf, then each output is
 * rint(x * (input_scale / output_scale) - (input_scale * max + log_sum) / output_scale) + zero point.
 */
#include <math.h>

#include "kernels.h"

void s8_log_softmax_ref(int64_t rows, int32_t depth, const float *exp_table, float input_scale, float output_scale,
                        int32_t output_zero_point, const int8_t *x, int8_t *y) {
    const float scale = input_scale / output_scale;
    for (int64_t r = 0; r < rows; ++r, x += depth, y += depth) {
        int32_t max = -128;
        for (int32_t i = 0; i < depth; ++i) max = x[i] > max ? x[i] : max;
        const float *table = exp_table + 255 - max; /* table[x] = expf(-input_scale * (max - x)) */
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; ++i) sum += table[x[i]];
        const float log_sum = logf(sum);
        const float offset = (input_scale * (float)max + log_sum) / output_scale;
        for (int32_t i = 0; i < depth; ++i) {
            const float log_prob = scale * (float)x[i] - offset;
            const int32_t q = (int32_t)rintf(log_prob) + output_zero_point;
            y[i] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
        }
    }
}
