/* f32_avgpool__avx2.c — f32_avgpool__scalar 8 channels a step, the last 1-7 through masked loads and stores:
 * the same nine-tap tree per group, the same adds to the total and the same multiply by `scale` (pool.h), so
 * the results are the scalar kernel's bits. The tree's four independent pair sums keep the adds busy without
 * a second channel block in flight. */
#include <immintrin.h>

#include "pool.h"

/* The window's total for the 8 channels at `c` (masked loads read 0 beyond the mask). */
static __m256 window_total8(size_t taps, const float *const *input, size_t c, __m256i mask) {
    __m256 total = _mm256_setzero_ps();
    for (size_t t = 0; t < taps; t += 9) {
        __m256 x[9];
        for (size_t k = 0; k < 9; ++k)
            x[k] = t + k < taps ? _mm256_maskload_ps(input[t + k] + c, mask) : _mm256_setzero_ps();
        const __m256 s018 = _mm256_add_ps(_mm256_add_ps(x[0], x[1]), x[8]);
        const __m256 s23 = _mm256_add_ps(x[2], x[3]), s45 = _mm256_add_ps(x[4], x[5]);
        const __m256 s67 = _mm256_add_ps(x[6], x[7]);
        total = _mm256_add_ps(total, _mm256_add_ps(_mm256_add_ps(s23, s45), _mm256_add_ps(s018, s67)));
    }
    return total;
}

/* The scalar kernel's clamp: max_ps and min_ps return their second operand, v, when it is a NaN. */
static __m256 clamp8(__m256 v, __m256 lo, __m256 hi) { return _mm256_min_ps(hi, _mm256_max_ps(lo, v)); }

void f32_avgpool__avx2(size_t channels, size_t taps, const float *const *input, float scale, float *output,
                       float min, float max) {
    const __m256 lo = _mm256_set1_ps(min), hi = _mm256_set1_ps(max), vscale = _mm256_set1_ps(scale);
    const __m256i all = _mm256_set1_epi32(-1);
    size_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        const __m256 v = _mm256_mul_ps(window_total8(taps, input, c, all), vscale);
        _mm256_storeu_ps(output + c, clamp8(v, lo, hi));
    }
    if (c < channels) {
        const int k = (int)(channels - c);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        const __m256 v = _mm256_mul_ps(window_total8(taps, input, c, mask), vscale);
        _mm256_maskstore_ps(output + c, mask, clamp8(v, lo, hi));
    }
}
