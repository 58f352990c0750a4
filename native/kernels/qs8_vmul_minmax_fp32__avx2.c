/* qs8_vmul_minmax_fp32__avx2.c — qs8_vmul_minmax_fp32__scalar, 16 elements a step: both inputs widened to
 * int32 less their zero points, multiplied (exact), converted to float, scaled, clamped in float, converted
 * with the default rounding mode (ties to even, as nearbyintf), the zero point added, narrowed (every value
 * is already in the clamp range, so saturation never changes one). */
#include <immintrin.h>
#include <string.h>

#include "kernels.h"

typedef struct {
    __m256i za, zb, zp;
    __m256 scale, lo, hi;
} vmul_constants;

static __m256i product8(__m128i a8, __m128i b8, const vmul_constants *k) {
    const __m256i va = _mm256_sub_epi32(_mm256_cvtepi8_epi32(a8), k->za);
    const __m256i vb = _mm256_sub_epi32(_mm256_cvtepi8_epi32(b8), k->zb);
    __m256 f = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_mullo_epi32(va, vb)), k->scale);
    f = _mm256_min_ps(_mm256_max_ps(f, k->lo), k->hi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(f), k->zp);
}

static __m128i vmul16(const int8_t *a, const int8_t *b, const vmul_constants *k) {
    const __m128i va = _mm_loadu_si128((const __m128i *)a), vb = _mm_loadu_si128((const __m128i *)b);
    const __m256i v0 = product8(va, vb, k), v1 = product8(_mm_srli_si128(va, 8), _mm_srli_si128(vb, 8), k);
    const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(v0, v1), 0xd8); /* lanes back in order */
    return _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
}

void qs8_vmul_minmax_fp32__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                const rl_s8_binary_params *p) {
    const int32_t zp = p->output_zero_point;
    const vmul_constants k = {_mm256_set1_epi32(p->a_zero_point), _mm256_set1_epi32(p->b_zero_point),
                              _mm256_set1_epi32(zp), _mm256_set1_ps(p->scale),
                              _mm256_set1_ps((float)(p->act_min - zp)), _mm256_set1_ps((float)(p->act_max - zp))};
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm_storeu_si128((__m128i *)(out + i), vmul16(a + i, b + i, &k));
    if (i < n) { /* the tail through a local block: never read or write past n */
        int8_t ta[16] = {0}, tb[16] = {0}, to[16];
        memcpy(ta, a + i, n - i);
        memcpy(tb, b + i, n - i);
        _mm_storeu_si128((__m128i *)to, vmul16(ta, tb, &k));
        memcpy(out + i, to, n - i);
    }
}
