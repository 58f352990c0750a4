/* f32_rmax__avx512.c — a row's maximum (f32_vexp.h), AVX-512F, 64 values a step in four accumulators started
 * at x[0], the last 1-15 through a zero-masked load (its masked-off lanes are not read, so nothing past n is)
 * merged into one accumulator under the same mask. vmaxps(x, acc) returns acc when either is NaN: the scalar
 * kernel's x > max ? x : max, lane by lane. */
#include "f32_vexp__avx512.h"

float f32_rmax__avx512(size_t n, const float *x) {
    __m512 m0 = _mm512_set1_ps(x[0]), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        m0 = _mm512_max_ps(_mm512_loadu_ps(x + i), m0);
        m1 = _mm512_max_ps(_mm512_loadu_ps(x + i + 16), m1);
        m2 = _mm512_max_ps(_mm512_loadu_ps(x + i + 32), m2);
        m3 = _mm512_max_ps(_mm512_loadu_ps(x + i + 48), m3);
    }
    for (; i + 16 <= n; i += 16) m0 = _mm512_max_ps(_mm512_loadu_ps(x + i), m0);
    if (i < n) { /* the last 1-15 values; the other lanes keep m1's own */
        const __mmask16 mask = rl_avx512_tail_mask(n - i);
        m1 = _mm512_mask_max_ps(m1, mask, _mm512_maskz_loadu_ps(mask, x + i), m1);
    }
    m0 = _mm512_max_ps(m1, m0);
    m2 = _mm512_max_ps(m3, m2);
    m0 = _mm512_max_ps(m2, m0);
    const __m256 m = _mm256_max_ps(_mm512_extractf32x8_ps(m0, 1), _mm512_castps512_ps256(m0));
    __m128 h = _mm_max_ps(_mm256_extractf128_ps(m, 1), _mm256_castps256_ps128(m));
    h = _mm_max_ps(_mm_movehl_ps(h, h), h);
    return _mm_cvtss_f32(_mm_max_ss(_mm_shuffle_ps(h, h, 1), h));
}
