/* f32_maxpool__avx2.c — f32_maxpool__scalar, 16 channels a step, then 8, then the last 1-7 through masked loads
 * and stores (nothing past a pixel's channels is touched). _mm256_max_ps(x, m) is x > m ? x : m, the scalar
 * kernel's own comparison, so a NaN tap never wins and the results are the scalar kernel's bits. */
#include <float.h>
#include <immintrin.h>

#include "pool.h"

/* x > m ? x : m, then the scalar kernel's clamp: v < min ? min : v, v > max ? max : v. */
static __m256 clamp8(__m256 v, __m256 lo, __m256 hi) { return _mm256_min_ps(hi, _mm256_max_ps(lo, v)); }

void f32_maxpool__avx2(size_t channels, size_t taps, const float *const *input, float *output, float min,
                       float max) {
    const __m256 lo = _mm256_set1_ps(min), hi = _mm256_set1_ps(max), lowest = _mm256_set1_ps(-FLT_MAX);
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        __m256 m0 = lowest, m1 = lowest;
        for (size_t t = 0; t < taps; ++t) {
            m0 = _mm256_max_ps(_mm256_loadu_ps(input[t] + c), m0);
            m1 = _mm256_max_ps(_mm256_loadu_ps(input[t] + c + 8), m1);
        }
        _mm256_storeu_ps(output + c, clamp8(m0, lo, hi));
        _mm256_storeu_ps(output + c + 8, clamp8(m1, lo, hi));
    }
    for (; c + 8 <= channels; c += 8) {
        __m256 m = lowest;
        for (size_t t = 0; t < taps; ++t) m = _mm256_max_ps(_mm256_loadu_ps(input[t] + c), m);
        _mm256_storeu_ps(output + c, clamp8(m, lo, hi));
    }
    if (c < channels) { /* lanes below k are live; masked-off lanes are neither read nor written */
        const int k = (int)(channels - c);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 m = lowest;
        for (size_t t = 0; t < taps; ++t) m = _mm256_max_ps(_mm256_maskload_ps(input[t] + c, mask), m);
        _mm256_maskstore_ps(output + c, mask, clamp8(m, lo, hi));
    }
}
