/* qs8_avgpool__scalar.c — one output pixel of int8 average pooling as TFLite's builtin kernel (XNNPACK does
 * not take int8 AVERAGE_POOL_2D): the in-bounds sum divided by the in-bounds count, rounding half away from
 * zero, clamped to [min, max]. Channels go in blocks so the int32 sums stay on the stack. */
#include "pool.h"

#define RL_AVGPOOL_BLOCK 64

void qs8_avgpool__scalar(size_t channels, size_t taps, const int8_t *const *input, int8_t *restrict output,
                         int32_t min, int32_t max) {
    const int32_t count = (int32_t)taps;
    for (size_t c0 = 0; c0 < channels; c0 += RL_AVGPOOL_BLOCK) {
        const size_t n = channels - c0 < RL_AVGPOOL_BLOCK ? channels - c0 : RL_AVGPOOL_BLOCK;
        int32_t acc[RL_AVGPOOL_BLOCK] = {0};
        for (size_t t = 0; t < taps; ++t) {
            const int8_t *restrict x = input[t] + c0;
            for (size_t c = 0; c < n; ++c) acc[c] += x[c];
        }
        for (size_t c = 0; c < n; ++c) {
            int32_t v = acc[c];
            if (count) v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count;
            output[c0 + c] = (int8_t)(v < min ? min : (v > max ? max : v));
        }
    }
}
