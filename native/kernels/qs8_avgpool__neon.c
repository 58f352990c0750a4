/* qs8_avgpool__neon.c — qs8_avgpool__scalar, 8 channels a step (aarch64 and armv7; the last 1-7 one at a time,
 * so nothing past a pixel's channels is read): sums over the taps in int16 (at most 64 taps of +-128: within
 * +-8192), widened to int32, then the division rounding half away from zero without a divide (armv7 NEON has
 * none): the magnitude n = |sum| + count / 2 times the float reciprocal of count, truncated, is within one of
 * n / count (n < 2^14, so the product's error is far below 1), and one integer step each way against the
 * remainder n - q * count makes it C's quotient exactly; the sum's sign goes back on after. */
#include <arm_neon.h>

#include "pool.h"

static int32x4_t rounded_quotient(int32x4_t sum, int32x4_t half, int32x4_t count, float32x4_t reciprocal) {
    const int32x4_t n = vaddq_s32(vabsq_s32(sum), half);
    int32x4_t q = vcvtq_s32_f32(vmulq_f32(vcvtq_f32_s32(n), reciprocal)); /* truncates */
    const int32x4_t r = vsubq_s32(n, vmulq_s32(q, count));
    q = vsubq_s32(q, vreinterpretq_s32_u32(vcgeq_s32(r, count)));                  /* r >= count: q + 1 */
    q = vaddq_s32(q, vreinterpretq_s32_u32(vcltq_s32(r, vdupq_n_s32(0))));         /* r < 0: q - 1 */
    const uint32x4_t negative = vcltq_s32(sum, vdupq_n_s32(0));
    return vbslq_s32(negative, vnegq_s32(q), q);
}

void qs8_avgpool__neon(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max) {
    if (taps == 0 || taps > 64) { /* no in-bounds tap, or beyond the int16 sums' range */
        qs8_avgpool__scalar(channels, taps, input, output, min, max);
        return;
    }
    const int32_t count = (int32_t)taps;
    const int32x4_t vhalf = vdupq_n_s32(count / 2), vcount = vdupq_n_s32(count);
    const float32x4_t reciprocal = vdupq_n_f32(1.0f / (float)count);
    const int8x8_t lo = vdup_n_s8((int8_t)min), hi = vdup_n_s8((int8_t)max);
    size_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        int16x8_t acc = vdupq_n_s16(0);
        for (size_t t = 0; t < taps; ++t) acc = vaddw_s8(acc, vld1_s8(input[t] + c));
        const int32x4_t q0 = rounded_quotient(vmovl_s16(vget_low_s16(acc)), vhalf, vcount, reciprocal);
        const int32x4_t q1 = rounded_quotient(vmovl_s16(vget_high_s16(acc)), vhalf, vcount, reciprocal);
        const int8x8_t bytes = vqmovn_s16(vcombine_s16(vqmovn_s32(q0), vqmovn_s32(q1)));
        vst1_s8(output + c, vmin_s8(vmax_s8(bytes, lo), hi));
    }
    for (; c < channels; ++c) {
        int32_t v = 0;
        for (size_t t = 0; t < taps; ++t) v += input[t][c];
        v = v > 0 ? (v + count / 2) / count : (v - count / 2) / count;
        output[c] = (int8_t)(v < min ? min : (v > max ? max : v));
    }
}
