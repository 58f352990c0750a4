/* s8_softmax_ref.c — int8 SOFTMAX over the last axis as TFLite's optimized builtin (x86) computes it.
 *
 * exp_table[255 - d] holds expf(-input_scale * beta * d) for a distance d below the row's maximum (built by
 * prepare); the sum, its reciprocal and the products are float32 in this order, as in TFLite, so the
 * rounding of every step is the same.
 */
#include <math.h>

#include "kernels.h"

void s8_softmax_ref(int64_t rows, int32_t depth, const float *exp_table, float output_scale, int32_t output_zero_point,
                    const int8_t *x, int8_t *y) {
    for (int64_t r = 0; r < rows; ++r, x += depth, y += depth) {
        int32_t max = -128;
        for (int32_t i = 0; i < depth; ++i) max = x[i] > max ? x[i] : max;
        const float *table = exp_table + 255 - max; /* table[x] = expf(scale * (max - x)) */
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; ++i) sum += table[x[i]];
        const float inverse = 1.0f / (sum * output_scale);
        for (int32_t i = 0; i < depth; ++i) {
            /* Clamped before the cast (a tiny output scale makes the product overflow int32); the final clamp
             * below gives the same int8 for every value inside. */
            const float v = fminf(fmaxf(table[x[i]] * inverse, -512.0f), 512.0f);
            const int32_t q = (int32_t)roundf(v) + output_zero_point;
            y[i] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
        }
    }
}
