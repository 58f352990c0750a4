/* s16_vlut__avx2.c — s16_vlut (s16_velementwise.h) on eight values at a time: one vpgatherdd per value reads the
 * 32 bits at lut + 256 + (x >> 7), which hold the entry and the next one (the index is at most 511 in a 513-entry
 * table, so the read stays inside it); the slope wrapped to int16 as TFLite keeps it, the interpolation
 * (slope * (x & 127) + 64) >> 7 in 32-bit lanes, the sum wrapped to int16 (sign-extended from its low half, so
 * that the saturating pack keeps it). The last n % 8 go through the scalar kernel. */
#include <immintrin.h>

#include "s16_velementwise.h"

void s16_vlut__avx2(size_t n, const int16_t *lut, const int16_t *x, int16_t *y) {
    const __m256i bias = _mm256_set1_epi32(256), low7 = _mm256_set1_epi32(0x7f), half = _mm256_set1_epi32(64);
    const int *table = (const int *)(const void *)lut;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i v = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(x + i)));
        const __m256i index = _mm256_add_epi32(_mm256_srai_epi32(v, 7), bias);
        /* scale 2: int16 entries, read two at a time */
        const __m256i pair = _mm256_i32gather_epi32(table, index, 2);
        const __m256i base = _mm256_srai_epi32(_mm256_slli_epi32(pair, 16), 16);
        const __m256i difference = _mm256_sub_epi32(_mm256_srai_epi32(pair, 16), base);
        const __m256i slope = _mm256_srai_epi32(_mm256_slli_epi32(difference, 16), 16);
        const __m256i delta = _mm256_srai_epi32(_mm256_add_epi32(_mm256_mullo_epi32(slope, _mm256_and_si256(v, low7)),
                                                                 half), 7);
        const __m256i sum = _mm256_add_epi32(base, delta);
        const __m256i r = _mm256_srai_epi32(_mm256_slli_epi32(sum, 16), 16);
        const __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storeu_si128((__m128i *)(y + i), packed);
    }
    s16_vlut__scalar(n - i, lut, x + i, y + i);
}
