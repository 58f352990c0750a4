/* f32_rmax__avx2.c — a row's maximum (f32_vexp.h), AVX2, 32 values a step in four accumulators started at
 * x[0], the last 1-7 through a masked load (nothing past n is read). vmaxps(x, acc) returns acc when either is
 * NaN: the scalar kernel's x > max ? x : max, lane by lane. */
#include "f32_vexp__avx2.h"

float f32_rmax__avx2(size_t n, const float *x) {
    __m256 m0 = _mm256_set1_ps(x[0]), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        m0 = _mm256_max_ps(_mm256_loadu_ps(x + i), m0);
        m1 = _mm256_max_ps(_mm256_loadu_ps(x + i + 8), m1);
        m2 = _mm256_max_ps(_mm256_loadu_ps(x + i + 16), m2);
        m3 = _mm256_max_ps(_mm256_loadu_ps(x + i + 24), m3);
    }
    for (; i + 8 <= n; i += 8) m0 = _mm256_max_ps(_mm256_loadu_ps(x + i), m0);
    if (i < n) { /* the last 1-7 values, the other lanes m1's own (no change) */
        const __m256i mask = rl_avx2_tail_mask(n - i);
        m1 = _mm256_max_ps(_mm256_blendv_ps(m1, _mm256_maskload_ps(x + i, mask), _mm256_castsi256_ps(mask)), m1);
    }
    m0 = _mm256_max_ps(m1, m0);
    m2 = _mm256_max_ps(m3, m2);
    m0 = _mm256_max_ps(m2, m0);
    __m128 h = _mm_max_ps(_mm256_extractf128_ps(m0, 1), _mm256_castps256_ps128(m0));
    h = _mm_max_ps(_mm_movehl_ps(h, h), h);
    return _mm_cvtss_f32(_mm_max_ss(_mm_shuffle_ps(h, h, 1), h));
}
