/* f32_raddstoreexpminusmax__avx512.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), AVX-512F, summed in
 * the order of XNNPACK's avx512f_rr2_p5_u64_acc2 kernel, which LiteRT's default Interpreter runs float SOFTMAX
 * on with AVX-512, so a row's sum, and so its outputs, are LiteRT's bits: 64 values a step into two sums (the
 * first and third sixteen into one, the second and fourth into the other), the two added, then 16 a step into
 * that, a last n % 16 values through a zero-masked load and a masked store (which touch nothing past n) added
 * under the mask, and the lanes summed as _mm512_reduce_add_ps does. beta = 1, XNNPACK's only case, skips the
 * multiply (x * 1 is x). */
#include "f32_vexp__avx512.h"

static inline __m512 exp_of(__m512 x, __m512 vmax, __m512 vbeta, int scaled) {
    const __m512 z = _mm512_sub_ps(x, vmax);
    return rl_avx512_expminus(scaled ? _mm512_mul_ps(z, vbeta) : z);
}

static inline float run(size_t n, const float *x, float max, float beta, float *y, int scaled) {
    const __m512 vmax = _mm512_set1_ps(max), vbeta = _mm512_set1_ps(beta);
    __m512 sum0 = _mm512_setzero_ps(), sum1 = sum0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512 e0 = exp_of(_mm512_loadu_ps(x + i), vmax, vbeta, scaled);
        const __m512 e1 = exp_of(_mm512_loadu_ps(x + i + 16), vmax, vbeta, scaled);
        const __m512 e2 = exp_of(_mm512_loadu_ps(x + i + 32), vmax, vbeta, scaled);
        const __m512 e3 = exp_of(_mm512_loadu_ps(x + i + 48), vmax, vbeta, scaled);
        _mm512_storeu_ps(y + i, e0);
        _mm512_storeu_ps(y + i + 16, e1);
        _mm512_storeu_ps(y + i + 32, e2);
        _mm512_storeu_ps(y + i + 48, e3);
        sum0 = _mm512_add_ps(sum0, e0);
        sum1 = _mm512_add_ps(sum1, e1);
        sum0 = _mm512_add_ps(sum0, e2);
        sum1 = _mm512_add_ps(sum1, e3);
    }
    __m512 sum = _mm512_add_ps(sum0, sum1);
    for (; i + 16 <= n; i += 16) {
        const __m512 e = exp_of(_mm512_loadu_ps(x + i), vmax, vbeta, scaled);
        _mm512_storeu_ps(y + i, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (i < n) {
        const __mmask16 mask = rl_avx512_tail_mask(n - i);
        const __m512 e = exp_of(_mm512_maskz_loadu_ps(mask, x + i), vmax, vbeta, scaled);
        _mm512_mask_storeu_ps(y + i, mask, e);
        sum = _mm512_mask_add_ps(sum, mask, sum, e);
    }
    return rl_avx512_hsum(sum);
}

float f32_raddstoreexpminusmax__avx512(size_t n, const float *x, float max, float beta, float *y) {
    return beta == 1.0f ? run(n, x, max, 1.0f, y, 0) : run(n, x, max, beta, y, 1);
}
