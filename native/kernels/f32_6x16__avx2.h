/* f32_6x16__avx2.h — the one tile of the float32 AVX2 GEMM and IGEMM (f32_gemm_6x16__avx2.c,
 * f32_igemm_6x16__avx2.c), 6 rows by 16 columns per step, AVX2 + FMA.
 *
 * 12 ymm accumulators, 2 ymm of weights and 1 broadcast use 15 of the 16 registers; per k, 2 weight
 * loads and 6 broadcasts feed 12 FMAs, enough independent chains to cover the FMA latency on two pipes.
 * Each tap's 6 row pointers are fetched once per tap (only the first mr; the rest alias the last valid one,
 * whose duplicate results are stored on that row with the same values), so the k loop has no branch. Sums
 * run over taps then k ascending from the bias, the packed order, as the scalar kernel. A GEMM is the IGEMM of
 * one tap over its own rows. A last panel of 8 columns or fewer is gemm.h's narrow one, 8 columns wide, run with
 * 8-lane vectors in the same order. Included only by AVX2 files. */
#ifndef RILLET_F32_6X16_AVX2_H
#define RILLET_F32_6X16_AVX2_H

#include <immintrin.h>

#include "f32_microkernels.h"

enum { MR = 6 };

/* Stores the first `cols` (< 16) lanes of lo:hi, 8 / 4 / 2 / 1 at a time: no lane past nc is written. */
static void store_partial(float *c, size_t cols, __m256 lo, __m256 hi) {
    if (cols & 8) {
        _mm256_storeu_ps(c, lo);
        lo = hi;
        c += 8;
    }
    __m128 x = _mm256_castps256_ps128(lo);
    if (cols & 4) {
        _mm_storeu_ps(c, x);
        x = _mm256_extractf128_ps(lo, 1);
        c += 4;
    }
    if (cols & 2) {
        _mm_storel_pi((__m64 *)c, x);
        x = _mm_movehl_ps(x, x);
        c += 2;
    }
    if (cols & 1) _mm_store_ss(c, x);
}

/* The IGEMM tile: tap p's rows at indirection[p * MR + i]; of each tap the first tap_mr are read (mr for an IGEMM,
 * MR for a GEMM's one tap, whose rows past mr already alias its last), the rest alias the last of those. Rows of c
 * past mr alias the last valid one. */
static inline __attribute__((always_inline)) void igemm_6x16(size_t mr, size_t tap_mr, size_t nc, size_t kc, size_t ks,
                                                             const float *const *indirection, const float *w, float *c,
                                                             size_t c_stride, const rl_f32_minmax_params *params) {
    float *c0 = c;
    float *c1 = mr > 1 ? c0 + c_stride : c0;
    float *c2 = mr > 2 ? c1 + c_stride : c1;
    float *c3 = mr > 3 ? c2 + c_stride : c2;
    float *c4 = mr > 4 ? c3 + c_stride : c3;
    float *c5 = mr > 5 ? c4 + c_stride : c4;
    const size_t i1 = tap_mr > 1 ? 1 : 0, i2 = tap_mr > 2 ? 2 : i1, i3 = tap_mr > 3 ? 3 : i2;
    const size_t i4 = tap_mr > 4 ? 4 : i3, i5 = tap_mr > 5 ? 5 : i4;
    const __m256 vmin = _mm256_set1_ps(params->min);
    const __m256 vmax = _mm256_set1_ps(params->max);

    for (size_t n0 = 0; n0 < nc; n0 += 16) {
        if (nc - n0 <= 8) { /* the last panel, 8 columns wide (gemm.h) */
            __m256 acc0 = _mm256_loadu_ps(w);
            __m256 acc1 = acc0, acc2 = acc0, acc3 = acc0, acc4 = acc0, acc5 = acc0;
            w += 8;
            for (size_t p = 0; p < ks; ++p) {
                const float *const *rows = indirection + p * MR;
                const float *a0 = rows[0], *a1 = rows[i1], *a2 = rows[i2];
                const float *a3 = rows[i3], *a4 = rows[i4], *a5 = rows[i5];
                for (size_t k = 0; k < kc; ++k) {
                    const __m256 vw = _mm256_loadu_ps(w);
                    w += 8;
                    acc0 = _mm256_fmadd_ps(_mm256_broadcast_ss(a0 + k), vw, acc0);
                    acc1 = _mm256_fmadd_ps(_mm256_broadcast_ss(a1 + k), vw, acc1);
                    acc2 = _mm256_fmadd_ps(_mm256_broadcast_ss(a2 + k), vw, acc2);
                    acc3 = _mm256_fmadd_ps(_mm256_broadcast_ss(a3 + k), vw, acc3);
                    acc4 = _mm256_fmadd_ps(_mm256_broadcast_ss(a4 + k), vw, acc4);
                    acc5 = _mm256_fmadd_ps(_mm256_broadcast_ss(a5 + k), vw, acc5);
                }
            }
            const size_t cols = nc - n0;
            const __m256 unused = _mm256_setzero_ps();
            store_partial(c5 + n0, cols, _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc5)), unused);
            store_partial(c4 + n0, cols, _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc4)), unused);
            store_partial(c3 + n0, cols, _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc3)), unused);
            store_partial(c2 + n0, cols, _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc2)), unused);
            store_partial(c1 + n0, cols, _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc1)), unused);
            store_partial(c0 + n0, cols, _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc0)), unused);
            break;
        }
        __m256 acc0l = _mm256_loadu_ps(w), acc0h = _mm256_loadu_ps(w + 8);
        __m256 acc1l = acc0l, acc1h = acc0h, acc2l = acc0l, acc2h = acc0h;
        __m256 acc3l = acc0l, acc3h = acc0h, acc4l = acc0l, acc4h = acc0h;
        __m256 acc5l = acc0l, acc5h = acc0h;
        w += 16;
        for (size_t p = 0; p < ks; ++p) {
            const float *const *rows = indirection + p * MR;
            const float *a0 = rows[0], *a1 = rows[i1], *a2 = rows[i2];
            const float *a3 = rows[i3], *a4 = rows[i4], *a5 = rows[i5];
            for (size_t k = 0; k < kc; ++k) {
                const __m256 wl = _mm256_loadu_ps(w), wh = _mm256_loadu_ps(w + 8);
                w += 16;
                __m256 x = _mm256_broadcast_ss(a0 + k);
                acc0l = _mm256_fmadd_ps(x, wl, acc0l);
                acc0h = _mm256_fmadd_ps(x, wh, acc0h);
                x = _mm256_broadcast_ss(a1 + k);
                acc1l = _mm256_fmadd_ps(x, wl, acc1l);
                acc1h = _mm256_fmadd_ps(x, wh, acc1h);
                x = _mm256_broadcast_ss(a2 + k);
                acc2l = _mm256_fmadd_ps(x, wl, acc2l);
                acc2h = _mm256_fmadd_ps(x, wh, acc2h);
                x = _mm256_broadcast_ss(a3 + k);
                acc3l = _mm256_fmadd_ps(x, wl, acc3l);
                acc3h = _mm256_fmadd_ps(x, wh, acc3h);
                x = _mm256_broadcast_ss(a4 + k);
                acc4l = _mm256_fmadd_ps(x, wl, acc4l);
                acc4h = _mm256_fmadd_ps(x, wh, acc4h);
                x = _mm256_broadcast_ss(a5 + k);
                acc5l = _mm256_fmadd_ps(x, wl, acc5l);
                acc5h = _mm256_fmadd_ps(x, wh, acc5h);
            }
        }
        acc0l = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc0l));
        acc0h = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc0h));
        acc1l = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc1l));
        acc1h = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc1h));
        acc2l = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc2l));
        acc2h = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc2h));
        acc3l = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc3l));
        acc3h = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc3h));
        acc4l = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc4l));
        acc4h = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc4h));
        acc5l = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc5l));
        acc5h = _mm256_min_ps(vmax, _mm256_max_ps(vmin, acc5h));
        if (nc - n0 >= 16) {
            _mm256_storeu_ps(c5 + n0, acc5l), _mm256_storeu_ps(c5 + n0 + 8, acc5h);
            _mm256_storeu_ps(c4 + n0, acc4l), _mm256_storeu_ps(c4 + n0 + 8, acc4h);
            _mm256_storeu_ps(c3 + n0, acc3l), _mm256_storeu_ps(c3 + n0 + 8, acc3h);
            _mm256_storeu_ps(c2 + n0, acc2l), _mm256_storeu_ps(c2 + n0 + 8, acc2h);
            _mm256_storeu_ps(c1 + n0, acc1l), _mm256_storeu_ps(c1 + n0 + 8, acc1h);
            _mm256_storeu_ps(c0 + n0, acc0l), _mm256_storeu_ps(c0 + n0 + 8, acc0h);
        } else {
            const size_t cols = nc - n0;
            store_partial(c5 + n0, cols, acc5l, acc5h);
            store_partial(c4 + n0, cols, acc4l, acc4h);
            store_partial(c3 + n0, cols, acc3l, acc3h);
            store_partial(c2 + n0, cols, acc2l, acc2h);
            store_partial(c1 + n0, cols, acc1l, acc1h);
            store_partial(c0 + n0, cols, acc0l, acc0h);
        }
    }
}

#endif
