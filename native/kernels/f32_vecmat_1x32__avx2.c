/* f32_vecmat_1x32__avx2.c — float32 row times matrix (rowdot.h), AVX2 + FMA: 32 columns per step in four ymm
 * accumulators, k ascending with fused multiply-adds (one broadcast x[k] per row of w); then 8 at a time, and
 * the last nc % 8 columns with masked loads and stores, which never touch the lanes they leave out. */
#include <immintrin.h>

#include "rowdot.h"

void f32_vecmat_1x32__avx2(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y) {
    size_t n = 0;
    for (; n + 32 <= nc; n += 32) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const float *wk = w + n;
        for (size_t k = 0; k < kc; ++k, wk += w_stride) {
            const __m256 xk = _mm256_broadcast_ss(x + k);
            a0 = _mm256_fmadd_ps(xk, _mm256_loadu_ps(wk), a0);
            a1 = _mm256_fmadd_ps(xk, _mm256_loadu_ps(wk + 8), a1);
            a2 = _mm256_fmadd_ps(xk, _mm256_loadu_ps(wk + 16), a2);
            a3 = _mm256_fmadd_ps(xk, _mm256_loadu_ps(wk + 24), a3);
        }
        _mm256_storeu_ps(y + n, a0);
        _mm256_storeu_ps(y + n + 8, a1);
        _mm256_storeu_ps(y + n + 16, a2);
        _mm256_storeu_ps(y + n + 24, a3);
    }
    for (; n < nc; n += 8) {
        const size_t cols = nc - n < 8 ? nc - n : 8;
        /* Lane j is loaded and stored where j < cols: the sign bit of each 32-bit mask element says so. */
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cols), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        __m256 a = _mm256_setzero_ps();
        const float *wk = w + n;
        for (size_t k = 0; k < kc; ++k, wk += w_stride)
            a = _mm256_fmadd_ps(_mm256_broadcast_ss(x + k), _mm256_maskload_ps(wk, mask), a);
        _mm256_maskstore_ps(y + n, mask, a);
    }
}
