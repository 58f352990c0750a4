/* f32_gemm_7x16__avx512.c — float32 GEMM, 7 rows by 16 columns per step, AVX-512F.
 *
 * 7 zmm accumulators, one weight vector per k and broadcast rows: 16-column panels waste nothing on the
 * 16..96-channel layers of mobile models (32-column ones would pad N = 16 and 48 layers). The last panel's
 * store is masked, so no column past nc is written. Rows past mr alias the last valid row (never read
 * beyond it) and store its same values, so the k loop has no branch. Sums run k ascending from the bias,
 * as the scalar kernel.
 * A last panel of 8 columns or fewer is gemm.h's narrow one, 8 columns wide, run with 8-lane vectors in the
 * same order. */
#include <immintrin.h>

#include "f32_microkernels.h"

void f32_gemm_7x16__avx512(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w,
                           float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    const float *a0 = a;
    float *c0 = c;
    const float *a1 = mr > 1 ? a0 + a_stride : a0;
    float *c1 = mr > 1 ? c0 + c_stride : c0;
    const float *a2 = mr > 2 ? a1 + a_stride : a1;
    float *c2 = mr > 2 ? c1 + c_stride : c1;
    const float *a3 = mr > 3 ? a2 + a_stride : a2;
    float *c3 = mr > 3 ? c2 + c_stride : c2;
    const float *a4 = mr > 4 ? a3 + a_stride : a3;
    float *c4 = mr > 4 ? c3 + c_stride : c3;
    const float *a5 = mr > 5 ? a4 + a_stride : a4;
    float *c5 = mr > 5 ? c4 + c_stride : c4;
    const float *a6 = mr > 6 ? a5 + a_stride : a5;
    float *c6 = mr > 6 ? c5 + c_stride : c5;
    const __m512 vmin = _mm512_set1_ps(params->min);
    const __m512 vmax = _mm512_set1_ps(params->max);

    for (size_t n0 = 0; n0 < nc; n0 += 16) {
        if (nc - n0 <= 8) { /* the last panel, 8 columns wide (gemm.h) */
            __m256 acc0 = _mm256_loadu_ps(w);
            __m256 acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0;
            w += 8;
            for (size_t k = 0; k < kc; ++k) {
                const __m256 vw = _mm256_loadu_ps(w);
                w += 8;
                acc0 = _mm256_fmadd_ps(_mm256_set1_ps(a0[k]), vw, acc0);
                acc1 = _mm256_fmadd_ps(_mm256_set1_ps(a1[k]), vw, acc1);
                acc2 = _mm256_fmadd_ps(_mm256_set1_ps(a2[k]), vw, acc2);
                acc3 = _mm256_fmadd_ps(_mm256_set1_ps(a3[k]), vw, acc3);
                acc4 = _mm256_fmadd_ps(_mm256_set1_ps(a4[k]), vw, acc4);
                acc5 = _mm256_fmadd_ps(_mm256_set1_ps(a5[k]), vw, acc5);
                acc6 = _mm256_fmadd_ps(_mm256_set1_ps(a6[k]), vw, acc6);
            }
            const __mmask8 mask = (__mmask8)((1u << (nc - n0)) - 1u);
            const __m256 vmin8 = _mm512_castps512_ps256(vmin), vmax8 = _mm512_castps512_ps256(vmax);
            _mm256_mask_storeu_ps(c6 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc6)));
            _mm256_mask_storeu_ps(c5 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc5)));
            _mm256_mask_storeu_ps(c4 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc4)));
            _mm256_mask_storeu_ps(c3 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc3)));
            _mm256_mask_storeu_ps(c2 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc2)));
            _mm256_mask_storeu_ps(c1 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc1)));
            _mm256_mask_storeu_ps(c0 + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc0)));
            break;
        }
        __m512 acc0 = _mm512_loadu_ps(w);
        __m512 acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0, acc6 = acc0;
        w += 16;
        for (size_t k = 0; k < kc; ++k) {
            const __m512 vw = _mm512_loadu_ps(w);
            w += 16;
            acc0 = _mm512_fmadd_ps(_mm512_set1_ps(a0[k]), vw, acc0);
            acc1 = _mm512_fmadd_ps(_mm512_set1_ps(a1[k]), vw, acc1);
            acc2 = _mm512_fmadd_ps(_mm512_set1_ps(a2[k]), vw, acc2);
            acc3 = _mm512_fmadd_ps(_mm512_set1_ps(a3[k]), vw, acc3);
            acc4 = _mm512_fmadd_ps(_mm512_set1_ps(a4[k]), vw, acc4);
            acc5 = _mm512_fmadd_ps(_mm512_set1_ps(a5[k]), vw, acc5);
            acc6 = _mm512_fmadd_ps(_mm512_set1_ps(a6[k]), vw, acc6);
        }
        const size_t cols = nc - n0 < 16 ? nc - n0 : 16;
        const __mmask16 mask = (__mmask16)((1u << cols) - 1u);
        _mm512_mask_storeu_ps(c6 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc6)));
        _mm512_mask_storeu_ps(c5 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc5)));
        _mm512_mask_storeu_ps(c4 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc4)));
        _mm512_mask_storeu_ps(c3 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc3)));
        _mm512_mask_storeu_ps(c2 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc2)));
        _mm512_mask_storeu_ps(c1 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc1)));
        _mm512_mask_storeu_ps(c0 + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc0)));
    }
}
