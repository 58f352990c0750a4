/* f32_vscale__avx2.c — y = x * s (f32_vexp.h), AVX2: 32 values a step, then 8, then a last n % 8 through masked
 * loads and stores, which touch nothing past n. */
#include "f32_vexp__avx2.h"

void f32_vscale__avx2(size_t n, const float *x, float s, float *y) {
    const __m256 vs = _mm256_set1_ps(s);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
        const __m256 c = _mm256_loadu_ps(x + i + 16), d = _mm256_loadu_ps(x + i + 24);
        _mm256_storeu_ps(y + i, _mm256_mul_ps(a, vs));
        _mm256_storeu_ps(y + i + 8, _mm256_mul_ps(b, vs));
        _mm256_storeu_ps(y + i + 16, _mm256_mul_ps(c, vs));
        _mm256_storeu_ps(y + i + 24, _mm256_mul_ps(d, vs));
    }
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vs));
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        _mm256_maskstore_ps(y + i, mask, _mm256_mul_ps(_mm256_maskload_ps(x + i, mask), vs));
    }
}
