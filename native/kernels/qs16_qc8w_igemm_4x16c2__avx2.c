/* qs16_qc8w_igemm_4x16c2__avx2.c — the 16x8 IGEMM on AVX2, 4 rows by 16 columns a step (qs16_gemm.h).
 *
 * _mm256_madd_epi16 multiplies a pair of int16 inputs (broadcast) by the pair of sign-extended weights of each
 * of 8 columns and adds the two products into that column's int32 lane; two such vectors cover the 16 columns.
 * A pair adds at most 2 * 32768 * 128 = 2^23 in magnitude, so every 128 pairs (2^30) the lanes are added into
 * int64 sums and cleared: the sums are exact, and the requantization is the scalar kernel's
 * (rl_qs16_requantize), so are the bits. */
#include <immintrin.h>
#include <string.h>

#include "qs16_gemm.h"

enum { MR = 4, NR = 16, FLUSH_PAIRS = 128 };

/* Adds the int32 lanes of rows 0..mr-1 into their int64 sums and clears them. */
static inline void flush(__m256i acc[MR][2], int64_t sums[MR][NR], size_t mr) {
    for (size_t i = 0; i < mr; ++i)
        for (size_t h = 0; h < 2; ++h) {
            __m256i lo = _mm256_loadu_si256((const __m256i *)&sums[i][8 * h]);
            __m256i hi = _mm256_loadu_si256((const __m256i *)&sums[i][8 * h + 4]);
            lo = _mm256_add_epi64(lo, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc[i][h])));
            hi = _mm256_add_epi64(hi, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc[i][h], 1)));
            _mm256_storeu_si256((__m256i *)&sums[i][8 * h], lo);
            _mm256_storeu_si256((__m256i *)&sums[i][8 * h + 4], hi);
            acc[i][h] = _mm256_setzero_si256();
        }
}

/* Pairs q0 .. q1 - 1 of one tap (whole pairs: both inputs read) into acc. */
static inline void add_pairs(__m256i acc[MR][2], const int16_t *const *a, const int16_t *wp, size_t q0, size_t q1,
                             size_t mr) {
    for (size_t q = q0; q < q1; ++q) {
        const __m256i w0 = _mm256_loadu_si256((const __m256i *)(wp + q * 2 * NR));
        const __m256i w1 = _mm256_loadu_si256((const __m256i *)(wp + q * 2 * NR + 16));
        for (size_t i = 0; i < mr; ++i) {
            int32_t pair;
            memcpy(&pair, a[i] + 2 * q, sizeof pair);
            const __m256i x = _mm256_set1_epi32(pair);
            acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(x, w0));
            acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(x, w1));
        }
    }
}

RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_4x16c2__avx2) {
    const size_t kc2 = (kc + 1) / 2 * 2, pairs = kc / 2;
    const char *panel = (const char *)w;
    const size_t panel_bytes = RL_QS16_PANEL_HEADER(NR) + ks * kc2 * NR * sizeof(int16_t);
    for (size_t n0 = 0; n0 < nc; n0 += NR, panel += panel_bytes) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        const int64_t *bias = (const int64_t *)panel;
        const rl_qs16_channel *channel = (const rl_qs16_channel *)(bias + NR);
        const int16_t *weights = (const int16_t *)(channel + NR);
        __m256i acc[MR][2];
        int64_t sums[MR][NR];
        for (size_t i = 0; i < MR; ++i) {
            acc[i][0] = acc[i][1] = _mm256_setzero_si256();
            memcpy(sums[i], bias, sizeof sums[i]);
        }
        size_t pending = 0; /* pairs added into acc since the last flush */
        for (size_t p = 0; p < ks; ++p) {
            const int16_t *wp = weights + p * kc2 * NR;
            const int16_t *a[MR];
            for (size_t i = 0; i < MR; ++i) a[i] = indirection[p * MR + (i < mr ? i : 0)];
            for (size_t q = 0; q < pairs;) {
                const size_t step = pairs - q < FLUSH_PAIRS - pending ? pairs - q : FLUSH_PAIRS - pending;
                add_pairs(acc, a, wp, q, q + step, mr);
                q += step;
                if ((pending += step) == FLUSH_PAIRS) {
                    flush(acc, sums, mr);
                    pending = 0;
                }
            }
            if (kc % 2) { /* an odd kc's last input, paired with 0 */
                const __m256i w0 = _mm256_loadu_si256((const __m256i *)(wp + pairs * 2 * NR));
                const __m256i w1 = _mm256_loadu_si256((const __m256i *)(wp + pairs * 2 * NR + 16));
                for (size_t i = 0; i < mr; ++i) {
                    const __m256i x = _mm256_set1_epi32((int32_t)(uint16_t)a[i][2 * pairs]);
                    acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(x, w0));
                    acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(x, w1));
                }
                if (++pending == FLUSH_PAIRS) {
                    flush(acc, sums, mr);
                    pending = 0;
                }
            }
        }
        flush(acc, sums, mr);
        for (size_t i = 0; i < mr; ++i) {
            int16_t *row = c + i * c_stride + n0;
            for (size_t j = 0; j < cols; ++j) row[j] = rl_qs16_requantize(sums[i][j], &channel[j], params);
        }
    }
}
