/* qs8_vaddc_minmax__avx512.c — qs8_vaddc_minmax__scalar, 32 elements a step, AVX-512 (F, BW, VL): the vector
 * widened to int32 as it loads, multiplied and added to the bias that holds b[0]'s term, then shifted,
 * narrowed, offset, narrowed and clamped as qs8_vadd_minmax__avx512 does (and why); the last 1-31 elements
 * under a byte mask. */
#include <immintrin.h>

#include "kernels.h"

typedef struct {
    __m512i bias, am, zp; /* zp: int16 */
    __m128i shift;
    __m256i lo, hi;
} vaddc_constants;

static inline __m256i vaddc16(__m128i a, const vaddc_constants *k) {
    const __m512i acc = _mm512_add_epi32(k->bias, _mm512_mullo_epi32(_mm512_cvtepi8_epi32(a), k->am));
    return _mm512_cvtsepi32_epi16(_mm512_sra_epi32(acc, k->shift));
}

static inline __m256i finish32(__m256i w0, __m256i w1, const vaddc_constants *k) {
    const __m512i words = _mm512_adds_epi16(_mm512_inserti64x4(_mm512_castsi256_si512(w0), w1, 1), k->zp);
    return _mm256_min_epi8(_mm256_max_epi8(_mm512_cvtsepi16_epi8(words), k->lo), k->hi);
}

void qs8_vaddc_minmax__avx512(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const vaddc_constants k = {
        _mm512_set1_epi32((int32_t)((uint32_t)p->xnn_bias + (uint32_t)(b[0] * p->xnn_b_multiplier))),
        _mm512_set1_epi32(p->xnn_a_multiplier), _mm512_set1_epi16((int16_t)p->output_zero_point),
        _mm_cvtsi32_si128(p->xnn_shift), _mm256_set1_epi8((char)p->act_min), _mm256_set1_epi8((char)p->act_max)};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i w0 = vaddc16(_mm_loadu_si128((const __m128i *)(const void *)(a + i)), &k);
        const __m256i w1 = vaddc16(_mm_loadu_si128((const __m128i *)(const void *)(a + i + 16)), &k);
        _mm256_storeu_si256((__m256i *)(void *)(out + i), finish32(w0, w1, &k));
    }
    if (i < n) {
        const __mmask32 m = (__mmask32)((UINT64_C(1) << (n - i)) - 1);
        const __m256i w0 = vaddc16(_mm_maskz_loadu_epi8((__mmask16)m, a + i), &k);
        const __m256i w1 = vaddc16(_mm_maskz_loadu_epi8((__mmask16)(m >> 16), a + i + 16), &k);
        _mm256_mask_storeu_epi8(out + i, m, finish32(w0, w1, &k));
    }
}
