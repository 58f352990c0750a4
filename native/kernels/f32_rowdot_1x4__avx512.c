/* f32_rowdot_1x4__avx512.c — float32 row-dot (rowdot.h), AVX-512F: four weight rows per step, each summed in two
 * zmm accumulators (k in steps of 32), reduced across lanes once per row. A row's last kc % 16 floats are read
 * with masked loads, which never fault on the lanes they leave out. Weight rows past nc alias the last real one
 * (computed, never stored). */
#include <immintrin.h>

#include "rowdot.h"

/* The 8 lane sums of a: its two halves added. */
static __m256 fold(__m512 a) { return _mm256_add_ps(_mm512_castps512_ps256(a), _mm512_extractf32x8_ps(a, 1)); }

/* [sum(a0), sum(a1), sum(a2), sum(a3)] */
static __m128 reduce4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(fold(a0), fold(a1)), _mm256_hadd_ps(fold(a2), fold(a3)));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

void f32_rowdot_1x4__avx512(size_t m, size_t nc, size_t kc, const float *x, size_t x_stride, const float *w,
                            const float *bias, float *y, size_t y_stride, const rl_f32_minmax_params *params) {
    const __m128 vmin = _mm_set1_ps(params->min), vmax = _mm_set1_ps(params->max);
    const size_t tail = kc % 16, k32 = kc - kc % 32, k16 = kc - tail;
    const __mmask16 tail_mask = (__mmask16)((1u << tail) - 1u);
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const float *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        float b[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (bias)
            for (size_t j = 0; j < rows; ++j) b[j] = bias[n0 + j];
        const __m128 vbias = _mm_loadu_ps(b);
        for (size_t i = 0; i < m; ++i) {
            const float *xi = x + i * x_stride;
            __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
            __m512 c0 = a0, c1 = a0, c2 = a0, c3 = a0;
            size_t k = 0;
            for (; k < k32; k += 32) {
                const __m512 xl = _mm512_loadu_ps(xi + k), xh = _mm512_loadu_ps(xi + k + 16);
                a0 = _mm512_fmadd_ps(xl, _mm512_loadu_ps(w0 + k), a0);
                a1 = _mm512_fmadd_ps(xl, _mm512_loadu_ps(w1 + k), a1);
                a2 = _mm512_fmadd_ps(xl, _mm512_loadu_ps(w2 + k), a2);
                a3 = _mm512_fmadd_ps(xl, _mm512_loadu_ps(w3 + k), a3);
                c0 = _mm512_fmadd_ps(xh, _mm512_loadu_ps(w0 + k + 16), c0);
                c1 = _mm512_fmadd_ps(xh, _mm512_loadu_ps(w1 + k + 16), c1);
                c2 = _mm512_fmadd_ps(xh, _mm512_loadu_ps(w2 + k + 16), c2);
                c3 = _mm512_fmadd_ps(xh, _mm512_loadu_ps(w3 + k + 16), c3);
            }
            if (k < k16) {
                const __m512 xv = _mm512_loadu_ps(xi + k);
                a0 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w0 + k), a0);
                a1 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w1 + k), a1);
                a2 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w2 + k), a2);
                a3 = _mm512_fmadd_ps(xv, _mm512_loadu_ps(w3 + k), a3);
                k += 16;
            }
            if (tail) {
                const __m512 xv = _mm512_maskz_loadu_ps(tail_mask, xi + k);
                c0 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(tail_mask, w0 + k), c0);
                c1 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(tail_mask, w1 + k), c1);
                c2 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(tail_mask, w2 + k), c2);
                c3 = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(tail_mask, w3 + k), c3);
            }
            __m128 v = _mm_add_ps(vbias, reduce4(_mm512_add_ps(a0, c0), _mm512_add_ps(a1, c1), _mm512_add_ps(a2, c2),
                                                 _mm512_add_ps(a3, c3)));
            v = _mm_min_ps(vmax, _mm_max_ps(vmin, v));
            float *yi = y + i * y_stride + n0;
            if (rows == 4) {
                _mm_storeu_ps(yi, v);
            } else {
                float out[4];
                _mm_storeu_ps(out, v);
                for (size_t j = 0; j < rows; ++j) yi[j] = out[j];
            }
        }
    }
}
