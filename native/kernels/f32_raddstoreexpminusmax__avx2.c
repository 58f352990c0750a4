/* f32_raddstoreexpminusmax__avx2.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), AVX2 + FMA, 32 values
 * a step in four sums (fewer left the exponentials' long dependency chains waiting: 16 values a step took 1.3x
 * as long on a 197-value row); a last n % 8 values through masked loads and stores, which touch nothing past n,
 * their masked-off lanes kept out of the sum. beta = 1, XNNPACK's only case, skips the multiply (x * 1 is x). */
#include "f32_vexp__avx2.h"

static inline __m256 exp_of(const float *x, __m256 vmax, __m256 vbeta, int scaled) {
    const __m256 z = _mm256_sub_ps(_mm256_loadu_ps(x), vmax);
    return rl_avx2_expminus(scaled ? _mm256_mul_ps(z, vbeta) : z);
}

static inline float run(size_t n, const float *x, float max, float beta, float *y, int scaled) {
    const __m256 vmax = _mm256_set1_ps(max), vbeta = _mm256_set1_ps(beta);
    __m256 sum0 = _mm256_setzero_ps(), sum1 = sum0, sum2 = sum0, sum3 = sum0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256 e0 = exp_of(x + i, vmax, vbeta, scaled), e1 = exp_of(x + i + 8, vmax, vbeta, scaled);
        const __m256 e2 = exp_of(x + i + 16, vmax, vbeta, scaled), e3 = exp_of(x + i + 24, vmax, vbeta, scaled);
        _mm256_storeu_ps(y + i, e0);
        _mm256_storeu_ps(y + i + 8, e1);
        _mm256_storeu_ps(y + i + 16, e2);
        _mm256_storeu_ps(y + i + 24, e3);
        sum0 = _mm256_add_ps(sum0, e0);
        sum1 = _mm256_add_ps(sum1, e1);
        sum2 = _mm256_add_ps(sum2, e2);
        sum3 = _mm256_add_ps(sum3, e3);
    }
    for (; i + 8 <= n; i += 8) {
        const __m256 e = exp_of(x + i, vmax, vbeta, scaled);
        _mm256_storeu_ps(y + i, e);
        sum0 = _mm256_add_ps(sum0, e);
    }
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        const __m256 z = _mm256_sub_ps(_mm256_maskload_ps(x + i, mask), vmax);
        const __m256 e = rl_avx2_expminus(scaled ? _mm256_mul_ps(z, vbeta) : z);
        _mm256_maskstore_ps(y + i, mask, e);
        sum1 = _mm256_add_ps(sum1, _mm256_and_ps(e, _mm256_castsi256_ps(mask)));
    }
    return rl_avx2_hsum(_mm256_add_ps(_mm256_add_ps(sum0, sum2), _mm256_add_ps(sum1, sum3)));
}

float f32_raddstoreexpminusmax__avx2(size_t n, const float *x, float max, float beta, float *y) {
    return beta == 1.0f ? run(n, x, max, 1.0f, y, 0) : run(n, x, max, beta, y, 1);
}
