/* qs8_vaddc_minmax__avx2.c — qs8_vaddc_minmax__scalar, 16 elements a step (a tail of fewer through
 * qs8_tail__avx2.h): the vector widened to int32 as it loads (8 bytes at a time, as qs8_vadd_minmax__avx2),
 * multiplied and added to the bias that holds b[0]'s term, shifted, narrowed to int16 with saturation, the zero
 * point added there with saturation, narrowed to int8 and put back in order with vpshufd, clamped: each step as
 * qs8_vadd_minmax__avx2's, and why. */
#include <immintrin.h>

#include "kernels.h"
#include "qs8_tail__avx2.h"

typedef struct {
    __m256i bias, am, zp; /* zp: int16 */
    __m128i shift, lo, hi;
} vaddc_constants;

/* elements 0-7 and 8-15 of a, widened to int32 */
static __m128i vaddc16(__m256i a0, __m256i a1, const vaddc_constants *k) {
    __m256i acc0 = _mm256_add_epi32(k->bias, _mm256_mullo_epi32(a0, k->am));
    __m256i acc1 = _mm256_add_epi32(k->bias, _mm256_mullo_epi32(a1, k->am));
    /* int16: elements 0-3, 8-11 | 4-7, 12-15; bytes: 0-3, 8-11, 4-7, 12-15 */
    const __m256i words = _mm256_adds_epi16(
        _mm256_packs_epi32(_mm256_sra_epi32(acc0, k->shift), _mm256_sra_epi32(acc1, k->shift)), k->zp);
    const __m128i bytes = _mm_shuffle_epi32(
        _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1)), _MM_SHUFFLE(3, 1, 2, 0));
    return _mm_min_epi8(_mm_max_epi8(bytes, k->lo), k->hi);
}

static __m256i load8_s32(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }

void qs8_vaddc_minmax__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const vaddc_constants k = {
        _mm256_set1_epi32((int32_t)((uint32_t)p->xnn_bias + (uint32_t)(b[0] * p->xnn_b_multiplier))),
        _mm256_set1_epi32(p->xnn_a_multiplier), _mm256_set1_epi16((int16_t)p->output_zero_point),
        _mm_cvtsi32_si128(p->xnn_shift), _mm_set1_epi8((char)p->act_min), _mm_set1_epi8((char)p->act_max)};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm_storeu_si128((__m128i *)(out + i), vaddc16(load8_s32(a + i), load8_s32(a + i + 8), &k));
    if (i < n) { /* never read or write past n */
        const __m128i ta = rl_load_tail_s8(a + i, n - i);
        rl_store_tail_s8(out + i, n - i,
                         vaddc16(_mm256_cvtepi8_epi32(ta), _mm256_cvtepi8_epi32(_mm_srli_si128(ta, 8)), &k));
    }
}
