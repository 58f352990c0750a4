/* s8_s32_rowdot_narrow_1x4__avx2.c — int8-to-int32 row-dot (rowdot.h) for weights in [-127, 127] (TFLite's
 * quantizer gives LSTM weights that narrow range; the op checks at prepare and runs s8_s32_rowdot_1x4__avx2
 * otherwise), AVX2: 32 bytes a step, multiplied with vpmaddubsw as |x| (unsigned, up to 128) times w with x's
 * sign (vpsignb: exact while w is not -128), pairs of products at most 2 * 128 * 127 so the int16 sums never
 * saturate, then widened to int32 with vpmaddwd by ones and summed modulo 2^32: the scalar kernel's bits, in
 * fewer instructions than widening both to int16 first. A row's last kc % 32 bytes go through
 * s8_s32_rowdot_1x4__avx2's steps (16 bytes, then qs8_tail__avx2.h, which reads no byte past the row). Weight
 * rows past nc alias the last real one (computed, never stored). */
#include <immintrin.h>

#include "qs8_tail__avx2.h"
#include "rowdot.h"

static __m256i widen16(const int8_t *p) { return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p)); }

/* acc + the int32 pair sums of x * w over 32 bytes: |x| times sign(x) * w */
static __m256i dot32(__m256i acc, __m256i x_abs, __m256i x, const int8_t *w) {
    const __m256i products = _mm256_maddubs_epi16(x_abs, _mm256_sign_epi8(_mm256_loadu_si256((const __m256i *)w), x));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(products, _mm256_set1_epi16(1)));
}

/* [sum(a0), sum(a1), sum(a2), sum(a3)] */
static __m128i reduce4(__m256i a0, __m256i a1, __m256i a2, __m256i a3) {
    const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

void s8_s32_rowdot_narrow_1x4__avx2(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride,
                                    const int8_t *w, const int32_t *bias, int32_t *y, size_t y_stride) {
    const size_t k32 = kc - kc % 32, k16 = kc - kc % 16, tail = kc % 16;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const int8_t *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        const rl_rowdot_step_params p = rl_rowdot_step_params_at(bias, NULL, n0, rows);
        const __m128i vbias = _mm_loadu_si128((const __m128i *)p.bias);
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
            size_t k = 0;
            for (; k < k32; k += 32) {
                const __m256i xv = _mm256_loadu_si256((const __m256i *)(xi + k)), xa = _mm256_abs_epi8(xv);
                a0 = dot32(a0, xa, xv, w0 + k);
                a1 = dot32(a1, xa, xv, w1 + k);
                a2 = dot32(a2, xa, xv, w2 + k);
                a3 = dot32(a3, xa, xv, w3 + k);
            }
            if (k < k16) {
                const __m256i xv = widen16(xi + k);
                a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(xv, widen16(w0 + k)));
                a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(xv, widen16(w1 + k)));
                a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(xv, widen16(w2 + k)));
                a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(xv, widen16(w3 + k)));
            }
            if (tail) {
                const __m256i xv = _mm256_cvtepi8_epi16(rl_load_tail_s8(xi + k16, tail));
                a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w0 + k16, tail))));
                a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w1 + k16, tail))));
                a2 = _mm256_add_epi32(a2, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w2 + k16, tail))));
                a3 = _mm256_add_epi32(a3, _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(rl_load_tail_s8(w3 + k16, tail))));
            }
            const __m128i acc = _mm_add_epi32(vbias, reduce4(a0, a1, a2, a3));
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
