/* qs8_vaddc_minmax__avx2.c — qs8_vaddc_minmax__scalar, 16 elements a step: the vector widened to int32,
 * multiplied and added to the bias that holds b[0]'s term, shifted, the zero point added, narrowed with
 * saturation (monotonic, so the clamp that follows gives the scalar result), clamped. */
#include <immintrin.h>
#include <string.h>

#include "kernels.h"

static __m128i vaddc16(const int8_t *a, __m256i bias, __m256i am, __m128i shift, __m256i zp, __m128i lo, __m128i hi) {
    const __m128i va = _mm_loadu_si128((const __m128i *)a);
    __m256i acc0 = _mm256_add_epi32(bias, _mm256_mullo_epi32(_mm256_cvtepi8_epi32(va), am));
    __m256i acc1 = _mm256_add_epi32(bias, _mm256_mullo_epi32(_mm256_cvtepi8_epi32(_mm_srli_si128(va, 8)), am));
    acc0 = _mm256_add_epi32(_mm256_sra_epi32(acc0, shift), zp);
    acc1 = _mm256_add_epi32(_mm256_sra_epi32(acc1, shift), zp);
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(acc0, acc1), 0xd8); /* lanes back in order */
    const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
    return _mm_min_epi8(_mm_max_epi8(bytes, lo), hi);
}

void qs8_vaddc_minmax__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const __m256i bias = _mm256_set1_epi32((int32_t)((uint32_t)p->xnn_bias + (uint32_t)(b[0] * p->xnn_b_multiplier)));
    const __m256i am = _mm256_set1_epi32(p->xnn_a_multiplier), zp = _mm256_set1_epi32(p->output_zero_point);
    const __m128i shift = _mm_cvtsi32_si128(p->xnn_shift);
    const __m128i lo = _mm_set1_epi8((char)p->act_min), hi = _mm_set1_epi8((char)p->act_max);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm_storeu_si128((__m128i *)(out + i), vaddc16(a + i, bias, am, shift, zp, lo, hi));
    if (i < n) { /* the tail through a local block: never read or write past n */
        int8_t ta[16] = {0}, to[16];
        memcpy(ta, a + i, n - i);
        _mm_storeu_si128((__m128i *)to, vaddc16(ta, bias, am, shift, zp, lo, hi));
        memcpy(out + i, to, n - i);
    }
}
