/* f32_vtanh__avx2.c — tanh (vactivation.h), AVX2 + FMA, eight values a step: tanh |x| = -m / (2 + m) with
 * m = e^z - 1 for z = -2|x| (clamped at -20, where tanh is 1 in float). e^z = 2^n * e^t, n = round(z / ln 2)
 * (through a magic bias, as f32_vsigmoid__avx2.c) and t = z - n ln 2 in two parts; e^t - 1 = t + t^2 q(t), q
 * the Taylor series to t^5 / 5040 (|t| <= ln 2 / 2: under 1e-8 relative), so m = 2^n (e^t - 1) + (2^n - 1) keeps
 * its relative accuracy near 0, where n is 0 and m is t + t^2 q(t). The sign of x goes back on at the end. A
 * last n % 8 values go through masked loads and stores, which touch no element past n. */
#include <immintrin.h>

#include "vactivation.h"

static __m256 tanh8(__m256 vx) {
    const __m256 sign_mask = _mm256_set1_ps(-0.0f), magic_bias = _mm256_set1_ps(0x1.8000FEp23f);
    const __m256 sign = _mm256_and_ps(vx, sign_mask);
    __m256 z = _mm256_or_ps(_mm256_add_ps(vx, vx), sign_mask); /* -2|x| */
    z = _mm256_max_ps(z, _mm256_set1_ps(-20.0f));
    __m256 n = _mm256_fmadd_ps(z, _mm256_set1_ps(0x1.715476p0f), magic_bias);
    const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n), 23));
    n = _mm256_sub_ps(n, magic_bias);
    __m256 t = _mm256_fmadd_ps(n, _mm256_set1_ps(-0x1.62E400p-1f), z);
    t = _mm256_fmadd_ps(n, _mm256_set1_ps(-0x1.7F7D1Cp-20f), t);
    __m256 q = _mm256_fmadd_ps(_mm256_set1_ps(1.0f / 5040.0f), t, _mm256_set1_ps(1.0f / 720.0f));
    q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(1.0f / 120.0f));
    q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(1.0f / 24.0f));
    q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(1.0f / 6.0f));
    q = _mm256_fmadd_ps(q, t, _mm256_set1_ps(0.5f));
    const __m256 et_minus_one = _mm256_fmadd_ps(_mm256_mul_ps(t, t), q, t);
    const __m256 m = _mm256_fmadd_ps(s, et_minus_one, _mm256_sub_ps(s, _mm256_set1_ps(1.0f)));
    const __m256 magnitude = _mm256_div_ps(_mm256_xor_ps(m, sign_mask), _mm256_add_ps(m, _mm256_set1_ps(2.0f)));
    return _mm256_or_ps(magnitude, sign);
}

void f32_vtanh__avx2(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, tanh8(_mm256_loadu_ps(x + i)));
    if (i < n) {
        const __m256i mask =
            _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_ps(y + i, mask, tanh8(_mm256_maskload_ps(x + i, mask)));
    }
}
