/* f32_vgelu__avx2.c — GELU, exact (erf) and tanh forms (f32_vexp.h), AVX2 + FMA, eight values a step, each lane
 * the scalar kernel's operations (XNNPACK's fma3 rational_12_10_div kernels: the same bits); a last n % 8
 * values through masked loads and stores. */
#include "f32_vexp__avx2.h"

static inline __m256 gelu8(__m256 x, const rl_vgelu_rational *c) {
    /* vminps and vmaxps return the second operand when one is NaN: x's NaN goes through */
    const __m256 v = _mm256_max_ps(_mm256_set1_ps(-c->max), _mm256_min_ps(_mm256_set1_ps(c->max), x));
    const __m256 v2 = _mm256_mul_ps(v, v);
    __m256 p = _mm256_fmadd_ps(v2, _mm256_set1_ps(c->alpha[5]), _mm256_set1_ps(c->alpha[4]));
    for (int k = 3; k >= 0; --k) p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(c->alpha[k]));
    p = _mm256_mul_ps(v, p);
    __m256 q = _mm256_fmadd_ps(v2, _mm256_set1_ps(c->beta[4]), _mm256_set1_ps(c->beta[3]));
    for (int k = 2; k >= 0; --k) q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(c->beta[k]));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(1.0f));
    const __m256 r = _mm256_div_ps(p, q);
    return _mm256_mul_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.5f)), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
}

static inline void run(size_t n, const float *x, float *y, const rl_vgelu_rational *c) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, gelu8(_mm256_loadu_ps(x + i), c));
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        _mm256_maskstore_ps(y + i, mask, gelu8(_mm256_maskload_ps(x + i, mask), c));
    }
}

void f32_vgelu__avx2(size_t n, const float *x, float *y) { run(n, x, y, &rl_vgelu_erf); }

void f32_vgelu_tanh__avx2(size_t n, const float *x, float *y) { run(n, x, y, &rl_vgelu_tanh); }
