/* s8_softmax_ref.c — int8 SOFTMAX over the last axis as TFLite's optimized builtin (x86) computes it.
 *
 * exp_table[255 - d] holds expf(-input_scale * beta * d) for a distance d below the row's maximum (built by
 * prepare); the sum, its reciprocal and the products are float32 in this order, as in TFLite, so the
 * rounding of every step is the same.
 */
#include <math.h>

#include "kernels.h"

/* roundf(v) for |v| <= 512, without a libm call (x86-64's baseline has no rounding instruction; roundf cost
 * most of this kernel's time): the truncation and the exact remainder v - t decide. */
static inline int32_t round_half_away(float v) {
    const int32_t t = (int32_t)v;
    const float rest = v - (float)t;
    return t + (rest >= 0.5f) - (rest <= -0.5f);
}

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
             * below gives the same int8 for every value inside. Compares, not fminf/fmaxf, which are libm calls.
             * A NaN product (a NaN beta in a hostile file makes the whole table NaN) takes the top, as
             * fmaxf(fminf(p, 512), -512) gave, and never reaches the cast (undefined for NaN). */
            const float p = table[x[i]] * inverse;
            const float v = p < -512.0f ? -512.0f : (p <= 512.0f ? p : 512.0f);
            const int32_t q = round_half_away(v) + output_zero_point;
            y[i] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
        }
    }
}
