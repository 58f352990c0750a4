/* qs8_avgpool__avx2.c — qs8_avgpool__scalar, 16 channels a step (the last 1-15 through qs8_tail__avx2.h): sums over the taps
 * in int16 (at most 64 taps of +-128: within +-8192), widened to int32, then the division rounding half away
 * from zero. The division runs in float and truncates: |sum +- count / 2| < 2^14 and count <= 64, so a
 * quotient that is not an integer lies at least 1/64 from one, far beyond float's error there, and
 * truncating the float quotient gives C's integer quotient exactly. */
#include <immintrin.h>

#include "pool.h"
#include "qs8_tail__avx2.h"

static __m256i rounded_quotient(__m256i sum, __m256i half, __m256 count) {
    /* sum > 0: sum + half; otherwise sum - half (C's (v - count / 2) / count, zero included) */
    const __m256i positive = _mm256_cmpgt_epi32(sum, _mm256_setzero_si256());
    const __m256i numerator = _mm256_blendv_epi8(_mm256_sub_epi32(sum, half), _mm256_add_epi32(sum, half), positive);
    return _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(numerator), count));
}

void qs8_avgpool__avx2(size_t channels, size_t taps, const int8_t *const *input, int8_t *output, int32_t min,
                       int32_t max) {
    if (taps == 0 || taps > 64) { /* no in-bounds tap, or beyond the int16 sums' and float division's range */
        qs8_avgpool__scalar(channels, taps, input, output, min, max);
        return;
    }
    const int32_t count = (int32_t)taps;
    const __m256i half = _mm256_set1_epi32(count / 2);
    const __m256 fcount = _mm256_set1_ps((float)count);
    const __m128i lo = _mm_set1_epi8((char)min), hi = _mm_set1_epi8((char)max);
    for (size_t c = 0; c < channels; c += 16) {
        const size_t k = channels - c < 16 ? channels - c : 16; /* a last block of fewer: never read past them */
        __m256i acc = _mm256_setzero_si256();
        for (size_t t = 0; t < taps; ++t) {
            const __m128i x = k == 16 ? _mm_loadu_si128((const __m128i *)(input[t] + c)) : rl_load_tail_s8(input[t] + c, k);
            acc = _mm256_add_epi16(acc, _mm256_cvtepi8_epi16(x));
        }
        const __m256i q0 = rounded_quotient(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(acc)), half, fcount);
        const __m256i q1 = rounded_quotient(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(acc, 1)), half, fcount);
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(q0, q1), 0xd8); /* lanes back in order */
        const __m128i bytes = _mm_packs_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        const __m128i v = _mm_min_epi8(_mm_max_epi8(bytes, lo), hi);
        if (k == 16) _mm_storeu_si128((__m128i *)(output + c), v);
        else rl_store_tail_s8(output + c, k, v);
    }
}
