/* qs16_qc8w_igemm_4x8c2__neon.c — the 16x8 IGEMM on NEON (aarch64 and armv7), 4 rows by 8 columns a step
 * (qs16_gemm.h), on the AVX2 kernel's packed weights.
 *
 * vld2q_s16 splits a pair of weight rows (channels 2q and 2q + 1 of 8 columns) into two vectors; vmlal_n_s16
 * multiplies each by its input and adds the products into int32 lanes, one per column. A pair adds at most
 * 2 * 32768 * 128 = 2^23 in magnitude, so every 128 pairs (2^30) the lanes are added into int64 sums
 * (vaddw_s32) and cleared: the sums are exact, and the requantization is the scalar kernel's
 * (rl_qs16_requantize), so are the bits. */
#include <arm_neon.h>

#include "qs16_gemm.h"

enum { MR = 4, NR = 8, FLUSH_PAIRS = 128 };

/* acc32[2i], acc32[2i + 1]: row i's columns 0-3 and 4-7; acc64[4i .. 4i + 3]: its columns in pairs. */
static void flush(int32x4_t *acc32, int64x2_t *acc64, size_t mr) {
    for (size_t i = 0; i < mr; ++i) {
        acc64[4 * i] = vaddw_s32(acc64[4 * i], vget_low_s32(acc32[2 * i]));
        acc64[4 * i + 1] = vaddw_s32(acc64[4 * i + 1], vget_high_s32(acc32[2 * i]));
        acc64[4 * i + 2] = vaddw_s32(acc64[4 * i + 2], vget_low_s32(acc32[2 * i + 1]));
        acc64[4 * i + 3] = vaddw_s32(acc64[4 * i + 3], vget_high_s32(acc32[2 * i + 1]));
        acc32[2 * i] = vdupq_n_s32(0);
        acc32[2 * i + 1] = vdupq_n_s32(0);
    }
}

RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_4x8c2__neon) {
    const size_t kc2 = (kc + 1) / 2 * 2, pairs = kc / 2;
    const char *panel = (const char *)w;
    const size_t panel_bytes = RL_QS16_PANEL_HEADER(NR) + ks * kc2 * NR * sizeof(int16_t);
    for (size_t n0 = 0; n0 < nc; n0 += NR, panel += panel_bytes) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        const int64_t *bias = (const int64_t *)panel;
        const rl_qs16_channel *channel = (const rl_qs16_channel *)(bias + NR);
        const int16_t *weights = (const int16_t *)(channel + NR);
        int32x4_t acc32[2 * MR];
        int64x2_t acc64[4 * MR];
        for (size_t i = 0; i < MR; ++i) {
            acc32[2 * i] = vdupq_n_s32(0);
            acc32[2 * i + 1] = vdupq_n_s32(0);
            for (size_t h = 0; h < 4; ++h) acc64[4 * i + h] = vld1q_s64(bias + 2 * h);
        }
        size_t pending = 0; /* pairs added into acc32 since the last flush */
        for (size_t p = 0; p < ks; ++p) {
            const int16_t *wp = weights + p * kc2 * NR;
            const int16_t *a[MR];
            for (size_t i = 0; i < MR; ++i) a[i] = indirection[p * MR + (i < mr ? i : 0)];
            for (size_t q = 0; q < kc2 / 2; ++q) {
                const int16x8x2_t vw = vld2q_s16(wp + q * 2 * NR); /* val[0]: channel 2q, val[1]: 2q + 1 */
                for (size_t i = 0; i < mr; ++i) {
                    const int16_t x0 = a[i][2 * q], x1 = q < pairs ? a[i][2 * q + 1] : 0; /* an odd kc's end */
                    acc32[2 * i] = vmlal_n_s16(acc32[2 * i], vget_low_s16(vw.val[0]), x0);
                    acc32[2 * i + 1] = vmlal_n_s16(acc32[2 * i + 1], vget_high_s16(vw.val[0]), x0);
                    acc32[2 * i] = vmlal_n_s16(acc32[2 * i], vget_low_s16(vw.val[1]), x1);
                    acc32[2 * i + 1] = vmlal_n_s16(acc32[2 * i + 1], vget_high_s16(vw.val[1]), x1);
                }
                if (++pending == FLUSH_PAIRS) {
                    flush(acc32, acc64, mr);
                    pending = 0;
                }
            }
        }
        flush(acc32, acc64, mr);
        for (size_t i = 0; i < mr; ++i) {
            int64_t sums[NR];
            for (size_t h = 0; h < 4; ++h) vst1q_s64(sums + 2 * h, acc64[4 * i + h]);
            int16_t *row = c + i * c_stride + n0;
            for (size_t j = 0; j < cols; ++j) row[j] = rl_qs16_requantize(sums[j], &channel[j], params);
        }
    }
}
