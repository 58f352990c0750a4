/* qs8_maxpool__avx2.c — qs8_maxpool__scalar, 32 channels a step, then 16, then 8, then the last 1-7 through
 * qs8_tail__avx2.h: the byte maximum over the taps,
 * starting from -128, clamped to [min, max]. */
#include <immintrin.h>

#include "pool.h"
#include "qs8_tail__avx2.h"

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
    for (; c + 8 <= channels; c += 8) { /* 8 bytes exactly: a pixel of 8 channels (cnn_small's) in one load */
        __m128i m = _mm_set1_epi8(-128);
        for (size_t t = 0; t < taps; ++t) m = _mm_max_epi8(m, _mm_loadl_epi64((const __m128i *)(input[t] + c)));
        _mm_storel_epi64((__m128i *)(output + c),
                         _mm_min_epi8(_mm_max_epi8(m, _mm_set1_epi8((char)min)), _mm_set1_epi8((char)max)));
    }
    if (c < channels) { /* never read past a pixel's channels */
        const size_t k = channels - c;
        __m128i m = _mm_set1_epi8(-128);
        for (size_t t = 0; t < taps; ++t) m = _mm_max_epi8(m, rl_load_tail_s8(input[t] + c, k));
        rl_store_tail_s8(output + c, k, _mm_min_epi8(_mm_max_epi8(m, _mm_set1_epi8((char)min)), _mm_set1_epi8((char)max)));
    }
}
