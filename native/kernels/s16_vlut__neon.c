/* s16_vlut__neon.c — s16_vlut (s16_velementwise.h), NEON (aarch64 and armv7), eight values a step. NEON has no
 * gather: each value's entry at 256 + (x >> 7) and the next one are read by lane from the 513-entry table (an
 * index is at most 511, so both reads stay inside it); the rest is vector arithmetic in TFLite's wrapping int16:
 * the slope as a wrapping difference, (slope * (x & 127) + 64) >> 7 widened by vmull_s16 and narrowed by
 * vrshrn_n_s32 (its rounding shift is that + 64 >> 7, and the value fits in int16), the sum wrapping. The last
 * n % 8 go through the scalar kernel. */
#include <arm_neon.h>

#include "s16_velementwise.h"

void s16_vlut__neon(size_t n, const int16_t *lut, const int16_t *x, int16_t *y) {
    const int16x8_t bias = vdupq_n_s16(256), low7 = vdupq_n_s16(0x7f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t v = vld1q_s16(x + i);
        int16_t index[8], entry[8], next[8];
        vst1q_s16(index, vaddq_s16(vshrq_n_s16(v, 7), bias));
        for (int k = 0; k < 8; ++k) {
            entry[k] = lut[index[k]];
            next[k] = lut[index[k] + 1];
        }
        const int16x8_t base = vld1q_s16(entry), slope = vsubq_s16(vld1q_s16(next), base);
        const int16x8_t offset = vandq_s16(v, low7);
        const int16x4_t lo = vrshrn_n_s32(vmull_s16(vget_low_s16(slope), vget_low_s16(offset)), 7);
        const int16x4_t hi = vrshrn_n_s32(vmull_s16(vget_high_s16(slope), vget_high_s16(offset)), 7);
        vst1q_s16(y + i, vaddq_s16(base, vcombine_s16(lo, hi)));
    }
    s16_vlut__scalar(n - i, lut, x + i, y + i);
}
