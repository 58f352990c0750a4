/* qs8_maxpool__neon.c — qs8_maxpool__scalar, 16 channels a step (aarch64 and armv7): the byte maximum over the
 * taps, starting from -128, clamped to [min, max]; the last 1-15 channels one at a time, so nothing past a
 * pixel's channels is read. */
#include <arm_neon.h>

#include "pool.h"

void qs8_maxpool__neon(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max) {
    const int8x16_t lo = vdupq_n_s8((int8_t)min), hi = vdupq_n_s8((int8_t)max);
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        int8x16_t m = vdupq_n_s8(-128);
        for (size_t t = 0; t < taps; ++t) m = vmaxq_s8(m, vld1q_s8(input[t] + c));
        vst1q_s8(output + c, vminq_s8(vmaxq_s8(m, lo), hi));
    }
    for (; c < channels; ++c) {
        int32_t m = -128;
        for (size_t t = 0; t < taps; ++t) m = input[t][c] > m ? input[t][c] : m;
        output[c] = (int8_t)(m < min ? min : (m > max ? max : m));
    }
}
