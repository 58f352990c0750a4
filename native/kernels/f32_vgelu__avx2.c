/* f32_vgelu__avx2.c — GELU, exact (erf) and tanh forms (f32_vexp.h), AVX2 + FMA, eight values a step, each
 * lane the scalar kernel's operations; a last n % 8 values through masked loads and stores. */
#include "f32_vexp__avx2.h"

static __m256 gelu8(__m256 x) {
    /* vminps and vmaxps return the second operand when one is NaN: x's NaN goes through */
    const __m256 vmax = _mm256_set1_ps(RL_VGELU_MAX);
    const __m256 v = _mm256_max_ps(_mm256_set1_ps(-RL_VGELU_MAX), _mm256_min_ps(vmax, x));
    const __m256 v2 = _mm256_mul_ps(v, v);
    __m256 p = _mm256_fmadd_ps(v2, _mm256_set1_ps(RL_VGELU_ALPHA11), _mm256_set1_ps(RL_VGELU_ALPHA9));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(RL_VGELU_ALPHA7));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(RL_VGELU_ALPHA5));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(RL_VGELU_ALPHA3));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(RL_VGELU_ALPHA1));
    p = _mm256_mul_ps(v, p);
    __m256 q = _mm256_fmadd_ps(v2, _mm256_set1_ps(RL_VGELU_BETA10), _mm256_set1_ps(RL_VGELU_BETA8));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(RL_VGELU_BETA6));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(RL_VGELU_BETA4));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(RL_VGELU_BETA2));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(1.0f));
    const __m256 erf = _mm256_div_ps(p, q);
    return _mm256_mul_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.5f)), _mm256_add_ps(erf, _mm256_set1_ps(1.0f)));
}

static __m256 gelu_tanh8(__m256 x) {
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    const __m256 cubic = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_set1_ps(RL_VGELU_TANH_C), x), x, one);
    const __m256 u2 = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(RL_VGELU_TANH_2K), x), cubic);
    const __m256 e = rl_avx2_expminus(_mm256_or_ps(u2, sign));
    const __m256 f = _mm256_div_ps(e, _mm256_add_ps(one, e));
    const __m256 negative = _mm256_cmp_ps(u2, _mm256_setzero_ps(), _CMP_LT_OQ);
    return _mm256_mul_ps(x, _mm256_blendv_ps(_mm256_sub_ps(one, f), f, negative));
}

void f32_vgelu__avx2(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, gelu8(_mm256_loadu_ps(x + i)));
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        _mm256_maskstore_ps(y + i, mask, gelu8(_mm256_maskload_ps(x + i, mask)));
    }
}

void f32_vgelu_tanh__avx2(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, gelu_tanh8(_mm256_loadu_ps(x + i)));
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        _mm256_maskstore_ps(y + i, mask, gelu_tanh8(_mm256_maskload_ps(x + i, mask)));
    }
}
