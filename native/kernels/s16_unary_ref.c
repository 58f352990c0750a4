/* s16_unary_ref.c — int16 ABS, NEG and SQRT as LiteRT's builtin kernels (EXP, LOG, RSQRT and GELU are
 * s16_lut_ref.c tables):
 * - ABS: |x|, rescaled by the input/output multiplier when the scales differ, clamped;
 * - NEG: the raw negation, wrapping -(-32768) to -32768 as the int16 cast does, whatever the scales;
 * - SQRT: in float, sqrt(scale_in * x) / scale_out truncated toward zero (TFLite's static_cast), clamped. */
#include <math.h>

#include "quant.h"
#include "s16_elementwise.h"

void s16_abs_ref(int64_t n, int32_t rescale, int32_t multiplier, int32_t shift, const int16_t *x, int16_t *y) {
    for (int64_t i = 0; i < n; ++i) {
        const int32_t v = x[i] < 0 ? -(int32_t)x[i] : x[i];
        y[i] = (int16_t)rl_clamp_i32(rescale ? rl_mul_by_quantized_multiplier(v, multiplier, shift) : v, -32768, 32767);
    }
}

void s16_neg_ref(int64_t n, const int16_t *x, int16_t *y) {
    for (int64_t i = 0; i < n; ++i) y[i] = (int16_t)(uint16_t)(0u - (uint16_t)x[i]);
}

int64_t s16_sqrt_ref(int64_t n, float input_scale, float output_scale, const int16_t *x, int16_t *y) {
    for (int64_t i = 0; i < n; ++i) {
        const float v = input_scale * (float)x[i];
        if (v < 0.0f) return i;
        const float q = sqrtf(v) / output_scale;
        const int32_t r = q < 2147483648.0f ? (int32_t)q : INT32_MIN; /* x86's out-of-range cast, made explicit */
        y[i] = (int16_t)rl_clamp_i32(r, -32768, 32767);
    }
    return -1;
}
