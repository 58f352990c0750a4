/* s8_s32_rowdot_1x4__avx2.c — int8-to-int32 row-dot (rowdot.h), AVX2: four weight rows per step; 32 input and
 * weight bytes a step widened to int16 and multiplied pairwise into int32 (vpmaddwd: every product of two int8
 * and the sum of two fit, even for -128), in two accumulators per row, modulo 2^32 as the scalar kernel's sums,
 * reduced across lanes once per row. A row's last kc % 16 bytes come through qs8_tail__avx2.h, which reads no
 * byte past it. Weight rows past nc alias the last real one (computed, never stored). */
#include <immintrin.h>

#include "qs8_tail__avx2.h"
#include "rowdot.h"

static __m256i widen16(const int8_t *p) { return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p)); }

static __m256i madd(__m256i acc, __m256i x, const int8_t *w) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(x, widen16(w)));
}

/* [sum(a0), sum(a1), sum(a2), sum(a3)] */
static __m128i reduce4(__m256i a0, __m256i a1, __m256i a2, __m256i a3) {
    const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

void s8_s32_rowdot_1x4__avx2(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                             const int32_t *bias, int32_t *y, size_t y_stride) {
    const size_t k32 = kc - kc % 32, k16 = kc - kc % 16, tail = kc % 16;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const int8_t *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        const rl_rowdot_step_params p = rl_rowdot_step_params_at(bias, NULL, n0, rows);
        const __m128i vbias = _mm_loadu_si128((const __m128i *)p.bias);
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0, c0 = a0, c1 = a0, c2 = a0, c3 = a0;
            size_t k = 0;
            for (; k < k32; k += 32) {
                const __m256i xl = widen16(xi + k), xh = widen16(xi + k + 16);
                a0 = madd(a0, xl, w0 + k);
                a1 = madd(a1, xl, w1 + k);
                a2 = madd(a2, xl, w2 + k);
                a3 = madd(a3, xl, w3 + k);
                c0 = madd(c0, xh, w0 + k + 16);
                c1 = madd(c1, xh, w1 + k + 16);
                c2 = madd(c2, xh, w2 + k + 16);
                c3 = madd(c3, xh, w3 + k + 16);
            }
            if (k < k16) {
                const __m256i xv = widen16(xi + k);
                a0 = madd(a0, xv, w0 + k);
                a1 = madd(a1, xv, w1 + k);
                a2 = madd(a2, xv, w2 + k);
                a3 = madd(a3, xv, w3 + k);
            }
            if (tail) {
                const __m256i xv = _mm256_cvtepi8_epi16(rl_load_tail_s8(xi + k16, tail));
                c0 = _mm256_add_epi32(c0, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w0 + k16, tail))));
                c1 = _mm256_add_epi32(c1, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w1 + k16, tail))));
                c2 = _mm256_add_epi32(c2, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w2 + k16, tail))));
                c3 = _mm256_add_epi32(c3, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w3 + k16, tail))));
            }
            const __m128i acc = _mm_add_epi32(vbias, reduce4(_mm256_add_epi32(a0, c0), _mm256_add_epi32(a1, c1),
                                                             _mm256_add_epi32(a2, c2), _mm256_add_epi32(a3, c3)));
            int32_t *yi = y + i * y_stride + n0;
            if (rows == 4) {
                _mm_storeu_si128((__m128i *)yi, acc);
            } else {
                int32_t all[4];
                _mm_storeu_si128((__m128i *)all, acc);
                rl_rowdot_store_s32x4(yi, all, rows);
            }
        }
    }
}
