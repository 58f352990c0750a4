/* qs8_vadd_minmax__avx512.c — qs8_vadd_minmax__scalar, 32 elements a step, AVX-512 (F, BW, VL): both inputs
 * widened to int32 as they load (16 bytes at a time), multiplied and added (wrapping, as the scalar int32
 * arithmetic), shifted, narrowed to int16 with saturation (vpmovsdw keeps the order, where AVX2's packs
 * interleave lanes), the zero point added there with saturation, narrowed to int8 with saturation (each step
 * monotonic, and a saturated value stays outside int8, so the clamp that follows gives the scalar result),
 * clamped. The last 1-31 elements load and store under a byte mask, which suppresses faults on the bytes it
 * leaves out: nothing past n is read or written. */
#include <immintrin.h>

#include "kernels.h"

typedef struct {
    __m512i bias, am, bm, zp; /* zp: int16 */
    __m128i shift;
    __m256i lo, hi;
} vadd_constants;

/* 16 elements of a and of b (int8 in 16 bytes) to 16 int16 of (bias + a * am + b * bm) >> shift */
static inline __m256i vadd16(__m128i a, __m128i b, const vadd_constants *k) {
    __m512i acc = _mm512_add_epi32(k->bias, _mm512_mullo_epi32(_mm512_cvtepi8_epi32(a), k->am));
    acc = _mm512_add_epi32(acc, _mm512_mullo_epi32(_mm512_cvtepi8_epi32(b), k->bm));
    return _mm512_cvtsepi32_epi16(_mm512_sra_epi32(acc, k->shift));
}

/* 32 int16 (two halves) to 32 clamped bytes */
static inline __m256i finish32(__m256i w0, __m256i w1, const vadd_constants *k) {
    const __m512i words = _mm512_adds_epi16(_mm512_inserti64x4(_mm512_castsi256_si512(w0), w1, 1), k->zp);
    return _mm256_min_epi8(_mm256_max_epi8(_mm512_cvtsepi16_epi8(words), k->lo), k->hi);
}

void qs8_vadd_minmax__avx512(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const vadd_constants k = {_mm512_set1_epi32(p->xnn_bias), _mm512_set1_epi32(p->xnn_a_multiplier),
                              _mm512_set1_epi32(p->xnn_b_multiplier), _mm512_set1_epi16((int16_t)p->output_zero_point),
                              _mm_cvtsi32_si128(p->xnn_shift), _mm256_set1_epi8((char)p->act_min),
                              _mm256_set1_epi8((char)p->act_max)};
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i w0 = vadd16(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                                  _mm_loadu_si128((const __m128i *)(const void *)(b + i)), &k);
        const __m256i w1 = vadd16(_mm_loadu_si128((const __m128i *)(const void *)(a + i + 16)),
                                  _mm_loadu_si128((const __m128i *)(const void *)(b + i + 16)), &k);
        _mm256_storeu_si256((__m256i *)(void *)(out + i), finish32(w0, w1, &k));
    }
    if (i < n) {
        const __mmask32 m = (__mmask32)((UINT64_C(1) << (n - i)) - 1);
        const __mmask16 m0 = (__mmask16)m, m1 = (__mmask16)(m >> 16);
        const __m256i w0 = vadd16(_mm_maskz_loadu_epi8(m0, a + i), _mm_maskz_loadu_epi8(m0, b + i), &k);
        const __m256i w1 = vadd16(_mm_maskz_loadu_epi8(m1, a + i + 16), _mm_maskz_loadu_epi8(m1, b + i + 16), &k);
        _mm256_mask_storeu_epi8(out + i, m, finish32(w0, w1, &k));
    }
}
