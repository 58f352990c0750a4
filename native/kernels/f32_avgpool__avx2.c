/* f32_avgpool__avx2.c — f32_avgpool__scalar, 32 channels a step (four sums in flight hide the adds' latency),
 * then 8, then the last 1-7 through masked loads and stores: each channel's taps added to 0.0f in window order
 * and the sum divided (not multiplied by a reciprocal) by the count, so the results are the scalar kernel's
 * bits. No tap in bounds: the scalar kernel. */
#include <immintrin.h>

#include "pool.h"

static __m256 average8(__m256 sum, __m256 count, __m256 lo, __m256 hi) {
    return _mm256_min_ps(hi, _mm256_max_ps(lo, _mm256_div_ps(sum, count)));
}

void f32_avgpool__avx2(size_t channels, size_t taps, const float *const *input, float *output, float min,
                       float max) {
    if (taps == 0) {
        f32_avgpool__scalar(channels, taps, input, output, min, max);
        return;
    }
    const __m256 lo = _mm256_set1_ps(min), hi = _mm256_set1_ps(max), count = _mm256_set1_ps((float)taps);
    size_t c = 0;
    for (; c + 32 <= channels; c += 32) {
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
               s3 = _mm256_setzero_ps();
        for (size_t t = 0; t < taps; ++t) {
            const float *x = input[t] + c;
            s0 = _mm256_add_ps(s0, _mm256_loadu_ps(x));
            s1 = _mm256_add_ps(s1, _mm256_loadu_ps(x + 8));
            s2 = _mm256_add_ps(s2, _mm256_loadu_ps(x + 16));
            s3 = _mm256_add_ps(s3, _mm256_loadu_ps(x + 24));
        }
        _mm256_storeu_ps(output + c, average8(s0, count, lo, hi));
        _mm256_storeu_ps(output + c + 8, average8(s1, count, lo, hi));
        _mm256_storeu_ps(output + c + 16, average8(s2, count, lo, hi));
        _mm256_storeu_ps(output + c + 24, average8(s3, count, lo, hi));
    }
    for (; c + 8 <= channels; c += 8) {
        __m256 s = _mm256_setzero_ps();
        for (size_t t = 0; t < taps; ++t) s = _mm256_add_ps(s, _mm256_loadu_ps(input[t] + c));
        _mm256_storeu_ps(output + c, average8(s, count, lo, hi));
    }
    if (c < channels) {
        const int k = (int)(channels - c);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 s = _mm256_setzero_ps();
        for (size_t t = 0; t < taps; ++t) s = _mm256_add_ps(s, _mm256_maskload_ps(input[t] + c, mask));
        _mm256_maskstore_ps(output + c, mask, average8(s, count, lo, hi));
    }
}
