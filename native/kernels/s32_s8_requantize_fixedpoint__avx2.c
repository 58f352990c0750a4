/* s32_s8_requantize_fixedpoint__avx2.c — requantize_fixedpoint.h on eight sums at a time.
 * SaturatingRoundingDoublingHighMul by a positive multiplier is floor((a * b + 2^30) / 2^31) for every a (its
 * nudge of 1 - 2^30 for a negative product, then truncation toward zero, is the same as adding 2^30 and flooring,
 * and a positive multiplier never saturates): vpmuldq on even and odd lanes, a 64-bit add, and the low 32 bits of
 * a logical shift by 31 (the result fits in 32 bits, so they are the arithmetic shift's). RoundingDivideByPOT is
 * gemmlowp's mask-and-threshold form lane by lane. The last n % 8 sums go through the scalar kernel. */
#include <immintrin.h>
#include <string.h>

#include "requantize_fixedpoint.h"

void s32_s8_requantize_fixedpoint__avx2(size_t n, const int32_t *acc, int32_t multiplier, int32_t shift,
                                        int32_t zero_point, int32_t lo, int32_t hi, int8_t *out) {
    const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const __m128i left_count = _mm_cvtsi32_si128(left), right_count = _mm_cvtsi32_si128(right);
    const __m256i vmultiplier = _mm256_set1_epi64x(multiplier), vhalf = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i vmask = _mm256_set1_epi32((int32_t)(((int64_t)1 << right) - 1));
    const __m256i vthreshold = _mm256_srli_epi32(vmask, 1), vzero = _mm256_setzero_si256();
    const __m256i vzp = _mm256_set1_epi32(zero_point), vlo = _mm256_set1_epi32(lo), vhi = _mm256_set1_epi32(hi);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i x = _mm256_sll_epi32(_mm256_loadu_si256((const __m256i *)(acc + i)), left_count);
        const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, vmultiplier), vhalf), 31);
        const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), vmultiplier), vhalf);
        const __m256i high = _mm256_blend_epi32(even, _mm256_slli_epi64(_mm256_srli_epi64(odd, 31), 32), 0xAA);
        const __m256i remainder = _mm256_and_si256(high, vmask);
        const __m256i threshold = _mm256_sub_epi32(vthreshold, _mm256_cmpgt_epi32(vzero, high)); /* +1 below 0 */
        __m256i v = _mm256_sub_epi32(_mm256_sra_epi32(high, right_count), _mm256_cmpgt_epi32(remainder, threshold));
        v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, vzp), vlo), vhi);
        const __m256i words = _mm256_packs_epi32(v, v); /* in range already: no saturation happens */
        const __m256i bytes = _mm256_packs_epi16(words, words);
        const int32_t first = _mm256_cvtsi256_si32(bytes), second = _mm256_extract_epi32(bytes, 4);
        memcpy(out + i, &first, 4);
        memcpy(out + i + 4, &second, 4);
    }
    s32_s8_requantize_fixedpoint__scalar(n - i, acc + i, multiplier, shift, zero_point, lo, hi, out + i);
}
