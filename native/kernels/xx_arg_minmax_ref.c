/* xx_arg_minmax_ref.c — ARG_MAX / ARG_MIN over the middle axis of [outer, axis_size, inner] float32, int32,
 * int8 or uint8 values (rl_dtype codes), as int32 or int64 indices. A strict comparison keeps the first
 * index among equal values, as TFLite's std::greater / std::less. */
#include "kernels.h"

static double value_at(int32_t dtype, const void *x, int64_t i) {
    switch (dtype) {
    case 0: return ((const float *)x)[i];
    case 2: return ((const int32_t *)x)[i];
    case 3: return ((const uint8_t *)x)[i];
    default: return ((const int8_t *)x)[i];
    }
}

void xx_arg_minmax_ref(int32_t dtype, int32_t take_max, int64_t outer, int64_t axis_size, int64_t inner, const void *x,
                       int32_t out_is_int64, void *y) {
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t c = 0; c < inner; ++c) {
            const int64_t base = o * axis_size * inner + c;
            double best = value_at(dtype, x, base);
            int64_t at = 0;
            for (int64_t k = 1; k < axis_size; ++k) {
                const double v = value_at(dtype, x, base + k * inner);
                if (take_max ? v > best : v < best) {
                    best = v;
                    at = k;
                }
            }
            if (out_is_int64) ((int64_t *)y)[o * inner + c] = at;
            else ((int32_t *)y)[o * inner + c] = (int32_t)at;
        }
}
