/* f32_vgelu__avx512.c — GELU, exact (erf) and tanh forms (f32_vexp.h), AVX-512F, sixteen values a step, each
 * lane the scalar kernel's operations (as f32_vgelu__avx2.c, twice as wide); a last n % 16 values through a
 * zero-masked load and a masked store, which touch nothing past n. */
#include "f32_vexp__avx512.h"

static __m512 gelu16(__m512 x) {
    /* vminps and vmaxps return the second operand when one is NaN: x's NaN goes through */
    const __m512 v = _mm512_max_ps(_mm512_set1_ps(-RL_VGELU_MAX), _mm512_min_ps(_mm512_set1_ps(RL_VGELU_MAX), x));
    const __m512 v2 = _mm512_mul_ps(v, v);
    __m512 p = _mm512_fmadd_ps(v2, _mm512_set1_ps(RL_VGELU_ALPHA11), _mm512_set1_ps(RL_VGELU_ALPHA9));
    p = _mm512_fmadd_ps(v2, p, _mm512_set1_ps(RL_VGELU_ALPHA7));
    p = _mm512_fmadd_ps(v2, p, _mm512_set1_ps(RL_VGELU_ALPHA5));
    p = _mm512_fmadd_ps(v2, p, _mm512_set1_ps(RL_VGELU_ALPHA3));
    p = _mm512_fmadd_ps(v2, p, _mm512_set1_ps(RL_VGELU_ALPHA1));
    p = _mm512_mul_ps(v, p);
    __m512 q = _mm512_fmadd_ps(v2, _mm512_set1_ps(RL_VGELU_BETA10), _mm512_set1_ps(RL_VGELU_BETA8));
    q = _mm512_fmadd_ps(v2, q, _mm512_set1_ps(RL_VGELU_BETA6));
    q = _mm512_fmadd_ps(v2, q, _mm512_set1_ps(RL_VGELU_BETA4));
    q = _mm512_fmadd_ps(v2, q, _mm512_set1_ps(RL_VGELU_BETA2));
    q = _mm512_fmadd_ps(v2, q, _mm512_set1_ps(1.0f));
    const __m512 erf = _mm512_div_ps(p, q);
    return _mm512_mul_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.5f)), _mm512_add_ps(erf, _mm512_set1_ps(1.0f)));
}

static __m512 gelu_tanh16(__m512 x) {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __m512 cubic = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_set1_ps(RL_VGELU_TANH_C), x), x, one);
    const __m512 u2 = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(RL_VGELU_TANH_2K), x), cubic);
    const __m512 e = rl_avx512_expminus(_mm512_or_ps(u2, _mm512_set1_ps(-0.0f)));
    const __m512 f = _mm512_div_ps(e, _mm512_add_ps(one, e));
    const __mmask16 negative = _mm512_cmp_ps_mask(u2, _mm512_setzero_ps(), _CMP_LT_OQ);
    return _mm512_mul_ps(x, _mm512_mask_blend_ps(negative, _mm512_sub_ps(one, f), f));
}

void f32_vgelu__avx512(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, gelu16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        const __mmask16 mask = rl_avx512_tail_mask(n - i);
        _mm512_mask_storeu_ps(y + i, mask, gelu16(_mm512_maskz_loadu_ps(mask, x + i)));
    }
}

void f32_vgelu_tanh__avx512(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, gelu_tanh16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        const __mmask16 mask = rl_avx512_tail_mask(n - i);
        _mm512_mask_storeu_ps(y + i, mask, gelu_tanh16(_mm512_maskz_loadu_ps(mask, x + i)));
    }
}
