/* f32_vlrelu__avx2.c — f32_vlrelu__scalar 16 elements a step, then 8, then the last 1-7 through a masked load:
 * x > 0 (an ordered compare, false for NaN and -0.0) blends x over x * alpha, the scalar bits. */
#include <immintrin.h>

#include "kernels.h"

static __m256 lrelu8(__m256 x, __m256 alpha) {
    return _mm256_blendv_ps(_mm256_mul_ps(x, alpha), x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
}

void f32_vlrelu__avx2(size_t n, float alpha, const float *x, float *y) {
    static const int32_t ones_then_zeros[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    const __m256 a = _mm256_set1_ps(alpha);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 v0 = lrelu8(_mm256_loadu_ps(x + i), a), v1 = lrelu8(_mm256_loadu_ps(x + i + 8), a);
        _mm256_storeu_ps(y + i, v0);
        _mm256_storeu_ps(y + i + 8, v1);
    }
    if (i + 8 <= n) {
        _mm256_storeu_ps(y + i, lrelu8(_mm256_loadu_ps(x + i), a));
        i += 8;
    }
    if (i < n) {
        const __m256i mask = _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - (n - i)));
        float last[8]; /* not vmaskmovps, which Zen 3 runs as microcode */
        _mm256_storeu_ps(last, lrelu8(_mm256_maskload_ps(x + i, mask), a));
        for (size_t j = 0; i + j < n; ++j) y[i + j] = last[j];
    }
}
