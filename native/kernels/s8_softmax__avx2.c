/* s8_softmax__avx2.c — int8 SOFTMAX over the last axis (s8_softmax_ref.c, TFLite's optimized builtin
 * arithmetic), AVX2: the row maximum 32 values a step, and the outputs 8 a step (table values gathered, the
 * same float product, clamp and round half away from zero, then the zero point and a saturating pack, which is
 * the reference's clamp to [-128, 127]); the sum stays one running float sum in order, as TFLite's, which fixes
 * its rounding: the same bits as the reference. */
#include <immintrin.h>

#include "kernels.h"

static int32_t row_max(int32_t depth, const int8_t *x) {
    int32_t i = 0, max = -128;
    if (depth >= 32) {
        __m256i m = _mm256_set1_epi8(-128);
        for (; i + 32 <= depth; i += 32) m = _mm256_max_epi8(m, _mm256_loadu_si256((const __m256i *)(x + i)));
        __m128i h = _mm_max_epi8(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
        h = _mm_max_epi8(h, _mm_srli_si128(h, 8));
        h = _mm_max_epi8(h, _mm_srli_si128(h, 4));
        h = _mm_max_epi8(h, _mm_srli_si128(h, 2));
        h = _mm_max_epi8(h, _mm_srli_si128(h, 1));
        max = (int8_t)_mm_extract_epi8(h, 0);
    }
    for (; i < depth; ++i) max = x[i] > max ? x[i] : max;
    return max;
}

/* The reference's output step for one value. */
static inline int8_t output_of(float p, int32_t zero_point) {
    const float v = p < -512.0f ? -512.0f : (p <= 512.0f ? p : 512.0f); /* NaN: the top, as the reference */
    const int32_t t = (int32_t)v;
    const float rest = v - (float)t;
    const int32_t q = t + (rest >= 0.5f) - (rest <= -0.5f) + zero_point;
    return (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
}

void s8_softmax__avx2(int64_t rows, int32_t depth, const float *exp_table, float output_scale,
                      int32_t output_zero_point, const int8_t *x, int8_t *y) {
    const __m256 lo = _mm256_set1_ps(-512.0f), hi = _mm256_set1_ps(512.0f), half = _mm256_set1_ps(0.5f);
    const __m256i zp = _mm256_set1_epi32(output_zero_point);
    for (int64_t r = 0; r < rows; ++r, x += depth, y += depth) {
        const float *table = exp_table + 255 - row_max(depth, x); /* table[x] = expf(scale * (max - x)) */
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; ++i) sum += table[x[i]];
        const float inverse = 1.0f / (sum * output_scale);
        const __m256 vinverse = _mm256_set1_ps(inverse);
        int32_t i = 0;
        for (; i + 8 <= depth; i += 8) {
            const __m256i index = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(x + i)));
            __m256 v = _mm256_mul_ps(_mm256_i32gather_ps(table, index, 4), vinverse);
            v = _mm256_max_ps(_mm256_min_ps(v, hi), lo); /* min first: a NaN lane becomes hi, as the reference */
            const __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            const __m256 rest = _mm256_sub_ps(v, t);
            __m256i q = _mm256_cvttps_epi32(t);
            /* a true compare is -1: subtracting the up mask adds 1, adding the down mask subtracts 1 */
            q = _mm256_sub_epi32(q, _mm256_castps_si256(_mm256_cmp_ps(rest, half, _CMP_GE_OQ)));
            q = _mm256_add_epi32(q, _mm256_castps_si256(_mm256_cmp_ps(rest, _mm256_set1_ps(-0.5f), _CMP_LE_OQ)));
            q = _mm256_add_epi32(q, zp);
            const __m128i q16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
            _mm_storel_epi64((__m128i *)(y + i), _mm_packs_epi16(q16, q16));
        }
        for (; i < depth; ++i) y[i] = output_of(table[x[i]] * inverse, output_zero_point);
    }
}
