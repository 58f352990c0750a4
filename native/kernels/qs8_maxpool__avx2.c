/* qs8_maxpool__avx2.c — qs8_maxpool__scalar, 32 channels a step (then 16, then one at a time): the byte
 * maximum over the taps, starting from -128, clamped to [min, max]. */
#include <immintrin.h>

#include "pool.h"

void qs8_maxpool__avx2(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max) {
    size_t c = 0;
    for (; c + 32 <= channels; c += 32) {
        __m256i m = _mm256_set1_epi8(-128);
        for (size_t t = 0; t < taps; ++t) m = _mm256_max_epi8(m, _mm256_loadu_si256((const __m256i *)(input[t] + c)));
        m = _mm256_min_epi8(_mm256_max_epi8(m, _mm256_set1_epi8((char)min)), _mm256_set1_epi8((char)max));
        _mm256_storeu_si256((__m256i *)(output + c), m);
    }
    for (; c + 16 <= channels; c += 16) {
        __m128i m = _mm_set1_epi8(-128);
        for (size_t t = 0; t < taps; ++t) m = _mm_max_epi8(m, _mm_loadu_si128((const __m128i *)(input[t] + c)));
        m = _mm_min_epi8(_mm_max_epi8(m, _mm_set1_epi8((char)min)), _mm_set1_epi8((char)max));
        _mm_storeu_si128((__m128i *)(output + c), m);
    }
    for (; c < channels; ++c) { /* fewer than 16 left: never read past a pixel's channels */
        int32_t m = -128;
        for (size_t t = 0; t < taps; ++t) m = input[t][c] > m ? input[t][c] : m;
        output[c] = (int8_t)(m < min ? min : (m > max ? max : m));
    }
}
