/* qs8_vadd_minmax__avx2.c — qs8_vadd_minmax__scalar, 16 elements a step (a tail of fewer through
 * qs8_tail__avx2.h): both inputs widened to int32 as they load (8 bytes at a time, as XNNPACK's ld64 kernels:
 * a register widened would cost a shuffle more per 8 elements, 30% of the time), multiplied and added
 * (wrapping, as the scalar int32 arithmetic), shifted, narrowed to int16 with saturation, the zero point added
 * there with saturation, narrowed to int8 with saturation (each step monotonic, and a saturated value stays
 * beyond the int8 range, so the clamp that follows gives the scalar result), clamped. As XNNPACK's
 * avx2-mul32-ld64 kernel, the zero point is one int16 add per 16 elements instead of two int32 ones, and the
 * 128-bit lanes the packs interleave are put back in order with an in-lane vpshufd on the 16 bytes instead of
 * a cross-lane vpermq on the 16 words (an eighth of the time of a 200,000-element ADD). Trying vpmaddwd on
 * interleaved (a, b) pairs and 15-bit halves of the multipliers instead of vpmulld was a third slower on Zen 3. */
#include <immintrin.h>

#include "kernels.h"
#include "qs8_tail__avx2.h"

typedef struct {
    __m256i bias, am, bm, zp; /* zp: int16 */
    __m128i shift, lo, hi;
} vadd_constants;

/* elements 0-7 and 8-15 of a and of b, widened to int32 */
static __m128i vadd16(__m256i a0, __m256i a1, __m256i b0, __m256i b1, const vadd_constants *k) {
    __m256i acc0 = _mm256_add_epi32(k->bias, _mm256_mullo_epi32(a0, k->am));
    __m256i acc1 = _mm256_add_epi32(k->bias, _mm256_mullo_epi32(a1, k->am));
    acc0 = _mm256_add_epi32(acc0, _mm256_mullo_epi32(b0, k->bm));
    acc1 = _mm256_add_epi32(acc1, _mm256_mullo_epi32(b1, k->bm));
    /* int16: elements 0-3, 8-11 | 4-7, 12-15; bytes: 0-3, 8-11, 4-7, 12-15 */
    const __m256i words = _mm256_adds_epi16(
        _mm256_packs_epi32(_mm256_sra_epi32(acc0, k->shift), _mm256_sra_epi32(acc1, k->shift)), k->zp);
    const __m128i bytes = _mm_shuffle_epi32(
        _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1)), _MM_SHUFFLE(3, 1, 2, 0));
    return _mm_min_epi8(_mm_max_epi8(bytes, k->lo), k->hi);
}

static __m256i load8_s32(const int8_t *p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)); }

void qs8_vadd_minmax__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const vadd_constants k = {_mm256_set1_epi32(p->xnn_bias), _mm256_set1_epi32(p->xnn_a_multiplier),
                              _mm256_set1_epi32(p->xnn_b_multiplier), _mm256_set1_epi16((int16_t)p->output_zero_point),
                              _mm_cvtsi32_si128(p->xnn_shift), _mm_set1_epi8((char)p->act_min),
                              _mm_set1_epi8((char)p->act_max)};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i v = vadd16(load8_s32(a + i), load8_s32(a + i + 8), load8_s32(b + i), load8_s32(b + i + 8), &k);
        _mm_storeu_si128((__m128i *)(out + i), v);
    }
    if (i < n) { /* never read or write past n */
        const __m128i ta = rl_load_tail_s8(a + i, n - i), tb = rl_load_tail_s8(b + i, n - i);
        const __m128i v = vadd16(_mm256_cvtepi8_epi32(ta), _mm256_cvtepi8_epi32(_mm_srli_si128(ta, 8)),
                                 _mm256_cvtepi8_epi32(tb), _mm256_cvtepi8_epi32(_mm_srli_si128(tb, 8)), &k);
        rl_store_tail_s8(out + i, n - i, v);
    }
}
