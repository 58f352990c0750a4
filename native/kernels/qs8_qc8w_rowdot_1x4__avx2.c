/* qs8_qc8w_rowdot_1x4__avx2.c — int8 row-dot (rowdot.h), AVX2: four weight rows per step; 16 input and weight
 * bytes widened to int16 and multiplied pairwise into int32 (vpmaddwd: every product of two int8 and the sum of
 * two fit, even for -128 weights), accumulated modulo 2^32 (vpaddd wraps, as the scalar kernel's uint32 sums),
 * reduced across lanes once per row. A row's last kc % 16 bytes come through qs8_tail__avx2.h, which reads no
 * byte past it. The requantization is gemm.h's fp32 one: vcvtps2dq rounds to nearest even; the clamped value
 * is within +-255, so the saturating packs are exact. Weight rows past nc alias the last real one (computed,
 * never stored). */
#include <immintrin.h>

#include "qs8_tail__avx2.h"
#include "rowdot.h"

static __m256i widen16(const int8_t *p) { return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p)); }

/* [sum(a0), sum(a1), sum(a2), sum(a3)] */
static __m128i reduce4(__m256i a0, __m256i a1, __m256i a2, __m256i a3) {
    const __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(a0, a1), _mm256_hadd_epi32(a2, a3));
    return _mm_add_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

void qs8_qc8w_rowdot_1x4__avx2(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                               const int32_t *bias, const float *scales, int8_t *y, size_t y_stride,
                               const rl_qs8_requantization_params *params) {
    const __m128 vmin = _mm_set1_ps(params->min_less_zero_point), vmax = _mm_set1_ps(params->max_less_zero_point);
    const __m128i vzero_point = _mm_set1_epi32(params->output_zero_point);
    const size_t k16 = kc - kc % 16, tail = kc % 16;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const int8_t *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        const rl_rowdot_step_params p = rl_rowdot_step_params_at(bias, scales, n0, rows);
        const __m128i vbias = _mm_loadu_si128((const __m128i *)p.bias);
        const __m128 vscale = _mm_loadu_ps(p.scale);
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
            for (size_t k = 0; k < k16; k += 16) {
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
            __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(acc), vscale);
            v = _mm_min_ps(_mm_max_ps(v, vmin), vmax);
            const __m128i q32 = _mm_add_epi32(_mm_cvtps_epi32(v), vzero_point);
            const __m128i q8 = _mm_packs_epi16(_mm_packs_epi32(q32, q32), q32);
            int8_t *yi = y + i * y_stride + n0;
            rl_rowdot_store_s8x4(yi, (uint32_t)_mm_cvtsi128_si32(q8), rows);
        }
    }
}
