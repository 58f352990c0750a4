/* f32_raddstoreexpminusmax__avx2.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), AVX2 + FMA, summed in
 * the order of XNNPACK's avx2_rr2_p5_u32_acc2 kernel, which LiteRT's default Interpreter runs float SOFTMAX on
 * with AVX2 and no AVX-512: 32 values a step into two sums (the first and third eight into one, the second and
 * fourth into the other), the two added, then 8 a step into that, a last n % 8 values through masked loads and
 * stores (which touch nothing past n) with their masked-off lanes kept out of the sum, and the lanes summed as
 * rl_avx2_hsum does. beta = 1, XNNPACK's only case, skips the multiply (x * 1 is x). */
#include "f32_vexp__avx2.h"

static inline __m256 exp_of(__m256 x, __m256 vmax, __m256 vbeta, int scaled) {
    const __m256 z = _mm256_sub_ps(x, vmax);
    return rl_avx2_expminus(scaled ? _mm256_mul_ps(z, vbeta) : z);
}

static inline float run(size_t n, const float *x, float max, float beta, float *y, int scaled) {
    const __m256 vmax = _mm256_set1_ps(max), vbeta = _mm256_set1_ps(beta);
    __m256 sum0 = _mm256_setzero_ps(), sum1 = sum0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256 e0 = exp_of(_mm256_loadu_ps(x + i), vmax, vbeta, scaled);
        const __m256 e1 = exp_of(_mm256_loadu_ps(x + i + 8), vmax, vbeta, scaled);
        const __m256 e2 = exp_of(_mm256_loadu_ps(x + i + 16), vmax, vbeta, scaled);
        const __m256 e3 = exp_of(_mm256_loadu_ps(x + i + 24), vmax, vbeta, scaled);
        _mm256_storeu_ps(y + i, e0);
        _mm256_storeu_ps(y + i + 8, e1);
        _mm256_storeu_ps(y + i + 16, e2);
        _mm256_storeu_ps(y + i + 24, e3);
        sum0 = _mm256_add_ps(sum0, e0);
        sum1 = _mm256_add_ps(sum1, e1);
        sum0 = _mm256_add_ps(sum0, e2);
        sum1 = _mm256_add_ps(sum1, e3);
    }
    __m256 sum = _mm256_add_ps(sum0, sum1);
    for (; i + 8 <= n; i += 8) {
        const __m256 e = exp_of(_mm256_loadu_ps(x + i), vmax, vbeta, scaled);
        _mm256_storeu_ps(y + i, e);
        sum = _mm256_add_ps(sum, e);
    }
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        const __m256 e = exp_of(_mm256_maskload_ps(x + i, mask), vmax, vbeta, scaled);
        _mm256_maskstore_ps(y + i, mask, e);
        sum = _mm256_add_ps(sum, _mm256_and_ps(e, _mm256_castsi256_ps(mask)));
    }
    return rl_avx2_hsum(sum);
}

float f32_raddstoreexpminusmax__avx2(size_t n, const float *x, float max, float beta, float *y) {
    return beta == 1.0f ? run(n, x, max, 1.0f, y, 0) : run(n, x, max, beta, y, 1);
}
