/* f32_vgelu__avx512.c — GELU, exact (erf) and tanh forms (f32_vexp.h), AVX-512F, sixteen values a step, each
 * lane the scalar kernel's operations (XNNPACK's avx512f rational_12_10_div kernels: the same bits); a last
 * n % 16 values through a zero-masked load and a masked store, which touch nothing past n. */
#include "f32_vexp__avx512.h"

static inline __m512 gelu16(__m512 x, const rl_vgelu_rational *c) {
    /* vminps and vmaxps return the second operand when one is NaN: x's NaN goes through */
    const __m512 v = _mm512_max_ps(_mm512_set1_ps(-c->max), _mm512_min_ps(_mm512_set1_ps(c->max), x));
    const __m512 v2 = _mm512_mul_ps(v, v);
    __m512 p = _mm512_fmadd_ps(v2, _mm512_set1_ps(c->alpha[5]), _mm512_set1_ps(c->alpha[4]));
    for (int k = 3; k >= 0; --k) p = _mm512_fmadd_ps(v2, p, _mm512_set1_ps(c->alpha[k]));
    p = _mm512_mul_ps(v, p);
    __m512 q = _mm512_fmadd_ps(v2, _mm512_set1_ps(c->beta[4]), _mm512_set1_ps(c->beta[3]));
    for (int k = 2; k >= 0; --k) q = _mm512_fmadd_ps(v2, q, _mm512_set1_ps(c->beta[k]));
    q = _mm512_fmadd_ps(v2, q, _mm512_set1_ps(1.0f));
    const __m512 r = _mm512_div_ps(p, q);
    return _mm512_mul_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.5f)), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
}

static inline void run(size_t n, const float *x, float *y, const rl_vgelu_rational *c) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, gelu16(_mm512_loadu_ps(x + i), c));
    if (i < n) {
        const __mmask16 mask = rl_avx512_tail_mask(n - i);
        _mm512_mask_storeu_ps(y + i, mask, gelu16(_mm512_maskz_loadu_ps(mask, x + i), c));
    }
}

void f32_vgelu__avx512(size_t n, const float *x, float *y) { run(n, x, y, &rl_vgelu_erf); }

void f32_vgelu_tanh__avx512(size_t n, const float *x, float *y) { run(n, x, y, &rl_vgelu_tanh); }
