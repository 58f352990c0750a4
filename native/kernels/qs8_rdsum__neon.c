/* qs8_rdsum__neon.c — int8 sum over the middle axis of a [reduced, channels] slice into int32 (qs8_rdsum__scalar.c,
 * the specification), NEON: an int8 MEAN's or SUM's over H and W of an NHWC image (a squeeze-and-excite block's
 * global pool).
 *
 * 16 channels a step, summed down the rows in int16 lanes (vaddw: one add per 8 bytes, no widening to int32 per
 * row), 256 rows at a time: 256 values of -128..127 sum to -32768..32512, inside int16. Each 256 rows' int16 sums
 * are then widened into the int32 totals. Rows go four at a time (vaddl of two, vaddw of two more, one add into
 * the running sums: 4 instructions a row and 16 channels instead of 7, one row per loop step with its pointer
 * and count; EfficientNet-B0's 17 squeeze-and-excite MEANs were 1.34M instructions per invoke under qemu,
 * XNNPACK's 0.87M). Then 8 channels a step one row at a time, the last 1-7 as the scalar kernel.
 * Integer sums: any order gives the scalar kernel's.
 */
#include <arm_neon.h>

#include "kernels.h"

enum { ROWS_PER_INT16_SUM = 256 };

void qs8_rdsum__neon(size_t reduced, size_t channels, const int8_t *restrict x, int32_t *restrict acc) {
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        int32x4_t total[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
        for (size_t r0 = 0; r0 < reduced; r0 += ROWS_PER_INT16_SUM) {
            const size_t r1 = reduced - r0 < ROWS_PER_INT16_SUM ? reduced : r0 + ROWS_PER_INT16_SUM;
            int16x8_t lo = vdupq_n_s16(0), hi = vdupq_n_s16(0);
            const int8_t *row = x + r0 * channels + c;
            size_t r = r0;
            for (; r + 4 <= r1; r += 4, row += 4 * channels) {
                const int8x16_t v0 = vld1q_s8(row), v1 = vld1q_s8(row + channels);
                const int8x16_t v2 = vld1q_s8(row + 2 * channels), v3 = vld1q_s8(row + 3 * channels);
                int16x8_t four_lo = vaddl_s8(vget_low_s8(v0), vget_low_s8(v1));
                int16x8_t four_hi = vaddl_s8(vget_high_s8(v0), vget_high_s8(v1));
                four_lo = vaddw_s8(vaddw_s8(four_lo, vget_low_s8(v2)), vget_low_s8(v3));
                four_hi = vaddw_s8(vaddw_s8(four_hi, vget_high_s8(v2)), vget_high_s8(v3));
                lo = vaddq_s16(lo, four_lo);
                hi = vaddq_s16(hi, four_hi);
            }
            for (; r < r1; ++r, row += channels) {
                const int8x16_t v = vld1q_s8(row);
                lo = vaddw_s8(lo, vget_low_s8(v));
                hi = vaddw_s8(hi, vget_high_s8(v));
            }
            total[0] = vaddw_s16(total[0], vget_low_s16(lo));
            total[1] = vaddw_s16(total[1], vget_high_s16(lo));
            total[2] = vaddw_s16(total[2], vget_low_s16(hi));
            total[3] = vaddw_s16(total[3], vget_high_s16(hi));
        }
        for (int q = 0; q < 4; ++q) vst1q_s32(acc + c + 4 * q, total[q]);
    }
    for (; c + 8 <= channels; c += 8) {
        int32x4_t total_lo = vdupq_n_s32(0), total_hi = vdupq_n_s32(0);
        for (size_t r0 = 0; r0 < reduced; r0 += ROWS_PER_INT16_SUM) {
            const size_t r1 = reduced - r0 < ROWS_PER_INT16_SUM ? reduced : r0 + ROWS_PER_INT16_SUM;
            int16x8_t sum = vdupq_n_s16(0);
            for (size_t r = r0; r < r1; ++r) sum = vaddw_s8(sum, vld1_s8(x + r * channels + c));
            total_lo = vaddw_s16(total_lo, vget_low_s16(sum));
            total_hi = vaddw_s16(total_hi, vget_high_s16(sum));
        }
        vst1q_s32(acc + c, total_lo);
        vst1q_s32(acc + c + 4, total_hi);
    }
    for (; c < channels; ++c) {
        int32_t sum = 0;
        for (size_t r = 0; r < reduced; ++r) sum += x[r * channels + c];
        acc[c] = sum;
    }
}
