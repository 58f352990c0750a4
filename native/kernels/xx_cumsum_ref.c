/* xx_cumsum_ref.c — CUMSUM along the middle axis of [outer, axis_size, inner] float32, int32 or int64 values
 * (rl_dtype codes): a running sum in order (from the end when reverse), each output before its own element
 * is added when exclusive, as Eigen's scan that TFLite runs. */
#include "kernels.h"

#define SCAN(T)                                                                                                  \
    do {                                                                                                        \
        const T *in = (const T *)x;                                                                             \
        T *out = (T *)y;                                                                                        \
        for (int64_t o = 0; o < outer; ++o)                                                                     \
            for (int64_t c = 0; c < inner; ++c) {                                                               \
                T acc = 0;                                                                                      \
                for (int64_t j = 0; j < axis_size; ++j) {                                                       \
                    const int64_t k = reverse ? axis_size - 1 - j : j;                                          \
                    const int64_t at = (o * axis_size + k) * inner + c;                                         \
                    if (exclusive) {                                                                            \
                        out[at] = acc;                                                                          \
                        acc += in[at];                                                                          \
                    } else {                                                                                    \
                        acc += in[at];                                                                          \
                        out[at] = acc;                                                                          \
                    }                                                                                           \
                }                                                                                               \
            }                                                                                                   \
    } while (0)

void xx_cumsum_ref(int32_t dtype, int64_t outer, int64_t axis_size, int64_t inner, int32_t exclusive, int32_t reverse,
                   const void *x, void *y) {
    if (dtype == 0) SCAN(float);
    else if (dtype == 2) SCAN(uint32_t); /* wrapping, as the int32 sum of two's complement values */
    else SCAN(uint64_t);
}
