/* f32_vecmat_1x64__avx512.c — float32 row times matrix (rowdot.h), AVX-512F: 64 columns per step in four zmm
 * accumulators, k ascending with fused multiply-adds (one broadcast x[k] per row of w); then 16 at a time, and
 * the last nc % 16 columns with masked loads and stores, which never touch the lanes they leave out. */
#include <immintrin.h>

#include "rowdot.h"

void f32_vecmat_1x64__avx512(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y) {
    size_t n = 0;
    for (; n + 64 <= nc; n += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const float *wk = w + n;
        for (size_t k = 0; k < kc; ++k, wk += w_stride) {
            const __m512 xk = _mm512_set1_ps(x[k]);
            a0 = _mm512_fmadd_ps(xk, _mm512_loadu_ps(wk), a0);
            a1 = _mm512_fmadd_ps(xk, _mm512_loadu_ps(wk + 16), a1);
            a2 = _mm512_fmadd_ps(xk, _mm512_loadu_ps(wk + 32), a2);
            a3 = _mm512_fmadd_ps(xk, _mm512_loadu_ps(wk + 48), a3);
        }
        _mm512_storeu_ps(y + n, a0);
        _mm512_storeu_ps(y + n + 16, a1);
        _mm512_storeu_ps(y + n + 32, a2);
        _mm512_storeu_ps(y + n + 48, a3);
    }
    for (; n < nc; n += 16) {
        const size_t cols = nc - n < 16 ? nc - n : 16;
        const __mmask16 mask = (__mmask16)((1u << cols) - 1u);
        __m512 a = _mm512_setzero_ps();
        const float *wk = w + n;
        for (size_t k = 0; k < kc; ++k, wk += w_stride)
            a = _mm512_fmadd_ps(_mm512_set1_ps(x[k]), _mm512_maskz_loadu_ps(mask, wk), a);
        _mm512_mask_storeu_ps(y + n, mask, a);
    }
}
