/* qs8_vmul_minmax_fp32__avx2.c — qs8_vmul_minmax_fp32__scalar, 16 elements a step (a tail of fewer through
 * qs8_tail__avx2.h): both inputs widened to int16 less their zero points (within +-255), their exact 32-bit
 * products from the low and high halves of the 16-bit multiplies, converted to float, scaled, clamped in
 * float, converted with the default rounding mode (ties to even, as nearbyintf), the zero point added,
 * narrowed (every value is already in the clamp range, so saturation never changes one). */
#include <immintrin.h>

#include "kernels.h"
#include "qs8_tail__avx2.h"

typedef struct {
    __m256i za, zb, zp;
    __m256 scale, lo, hi;
} vmul_constants;

static __m256i requantize8(__m256i product, const vmul_constants *k) {
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(product), k->scale);
    f = _mm256_min_ps(_mm256_max_ps(f, k->lo), k->hi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(f), k->zp);
}

static __m128i vmul16(__m128i va, __m128i vb, const vmul_constants *k) {
    const __m256i a = _mm256_sub_epi16(_mm256_cvtepi8_epi16(va), k->za);
    const __m256i b = _mm256_sub_epi16(_mm256_cvtepi8_epi16(vb), k->zb);
    const __m256i lo = _mm256_mullo_epi16(a, b), hi = _mm256_mulhi_epi16(a, b);
    /* per 128-bit lane: elements 0-3 and 4-7 of the lane, so the packs below come out in order */
    const __m256i v0 = requantize8(_mm256_unpacklo_epi16(lo, hi), k), v1 = requantize8(_mm256_unpackhi_epi16(lo, hi), k);
    const __m256i words = _mm256_packs_epi32(v0, v1);
    return _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
}

void qs8_vmul_minmax_fp32__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                const rl_s8_binary_params *p) {
    const int32_t zp = p->output_zero_point;
    const vmul_constants k = {_mm256_set1_epi16((short)p->a_zero_point), _mm256_set1_epi16((short)p->b_zero_point),
                              _mm256_set1_epi32(zp), _mm256_set1_ps(p->scale),
                              _mm256_set1_ps((float)(p->act_min - zp)), _mm256_set1_ps((float)(p->act_max - zp))};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i va = _mm_loadu_si128((const __m128i *)(a + i)), vb = _mm_loadu_si128((const __m128i *)(b + i));
        _mm_storeu_si128((__m128i *)(out + i), vmul16(va, vb, &k));
    }
    if (i < n) /* never read or write past n */
        rl_store_tail_s8(out + i, n - i, vmul16(rl_load_tail_s8(a + i, n - i), rl_load_tail_s8(b + i, n - i), &k));
}
