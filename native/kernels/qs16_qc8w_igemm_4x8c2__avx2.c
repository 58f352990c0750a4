/* qs16_qc8w_igemm_4x8c2__avx2.c — the 16x8 IGEMM on AVX2, 4 rows by 8 columns a step (qs16_gemm.h).
 *
 * _mm256_madd_epi16 multiplies a pair of int16 inputs (broadcast) by the pair of sign-extended weights of each
 * of 8 columns and adds the two products into that column's int32 lane. A pair adds at most 2 * 32768 * 128 =
 * 2^23 in magnitude, so every 128 pairs (2^30) the lanes are added into int64 sums and cleared: the sums are
 * exact, and the requantization is the scalar kernel's (rl_qs16_requantize), so are the bits. */
#include <immintrin.h>
#include <string.h>

#include "qs16_gemm.h"

enum { MR = 4, NR = 8, FLUSH_PAIRS = 128 };

static inline void flush(__m256i *acc32, __m256i *lo, __m256i *hi, size_t mr) {
    for (size_t i = 0; i < mr; ++i) {
        lo[i] = _mm256_add_epi64(lo[i], _mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc32[i])));
        hi[i] = _mm256_add_epi64(hi[i], _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc32[i], 1)));
        acc32[i] = _mm256_setzero_si256();
    }
}

RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_4x8c2__avx2) {
    const size_t kc2 = (kc + 1) / 2 * 2, pairs = kc / 2;
    const char *panel = (const char *)w;
    const size_t panel_bytes = RL_QS16_PANEL_HEADER(NR) + ks * kc2 * NR * sizeof(int16_t);
    for (size_t n0 = 0; n0 < nc; n0 += NR, panel += panel_bytes) {
        const size_t cols = nc - n0 < NR ? nc - n0 : NR;
        const int64_t *bias = (const int64_t *)panel;
        const rl_qs16_channel *channel = (const rl_qs16_channel *)(bias + NR);
        const int16_t *weights = (const int16_t *)(channel + NR);
        __m256i acc32[MR], lo[MR], hi[MR];
        for (size_t i = 0; i < MR; ++i) {
            acc32[i] = _mm256_setzero_si256();
            lo[i] = _mm256_loadu_si256((const __m256i *)bias);
            hi[i] = _mm256_loadu_si256((const __m256i *)(bias + 4));
        }
        size_t pending = 0; /* pairs added into acc32 since the last flush */
        for (size_t p = 0; p < ks; ++p) {
            const int16_t *wp = weights + p * kc2 * NR;
            const int16_t *a[MR];
            for (size_t i = 0; i < MR; ++i) a[i] = indirection[p * MR + (i < mr ? i : 0)];
            for (size_t q = 0; q < kc2 / 2; ++q) {
                const __m256i vw = _mm256_loadu_si256((const __m256i *)(wp + q * 2 * NR));
                for (size_t i = 0; i < mr; ++i) {
                    int32_t pair;
                    if (q < pairs) memcpy(&pair, a[i] + 2 * q, sizeof pair);
                    else pair = (int32_t)(uint16_t)a[i][2 * q]; /* an odd kc's last input, with 0 */
                    acc32[i] = _mm256_add_epi32(acc32[i], _mm256_madd_epi16(_mm256_set1_epi32(pair), vw));
                }
                if (++pending == FLUSH_PAIRS) {
                    flush(acc32, lo, hi, mr);
                    pending = 0;
                }
            }
        }
        flush(acc32, lo, hi, mr);
        for (size_t i = 0; i < mr; ++i) {
            int64_t sums[NR];
            _mm256_storeu_si256((__m256i *)sums, lo[i]);
            _mm256_storeu_si256((__m256i *)(sums + 4), hi[i]);
            int16_t *row = c + i * c_stride + n0;
            for (size_t j = 0; j < cols; ++j) row[j] = rl_qs16_requantize(sums[j], &channel[j], params);
        }
    }
}
