/* f32_igemm_7xnr__avx512.h — the AVX-512 float32 GEMM/IGEMM tile of 7 rows by NR (16 or 32) columns, one
 * template for f32_{gemm,igemm}_7x{16,32}__avx512.c; a GEMM is the IGEMM of one tap whose row pointers are its 7
 * rows.
 *
 * Why 32 columns: on cores with two 512-bit FMA units (Intel's Xeons), 7 accumulators of 16 lanes are 7 chains of
 * 4-cycle FMAs, under the 8 the two units need in flight, and 8 loads per 7 FMAs (one weight vector, 7
 * broadcasts) fill the load ports: measured on such a Xeon, the 7x16 tile ran a whisper-sized FULLY_CONNECTED
 * at 1.23-1.70x XNNPACK's time (its 7x32 tile: 14 chains, 9 loads per 14 FMAs). The mobile layers of 16-48
 * channels keep the 7x16 tile (f32_configs.c's wide config is for wide layers only).
 *
 * Per panel, the accumulators start from the packed bias and add taps then k ascending, as the scalar kernel: the
 * same sums in the same order whatever the tile. A last panel of 8 columns or fewer is gemm.h's narrow one, 8
 * wide, run with 8-lane vectors; with NR 32, one of 9-16 columns is 16 wide (gemm.h), run with one 16-lane vector. Rows past mr alias the last valid row and store its same values, so the k loop has no branch.
 */
#ifndef RILLET_F32_IGEMM_7XNR_AVX512_H
#define RILLET_F32_IGEMM_7XNR_AVX512_H

#include <immintrin.h>

#include "f32_microkernels.h"

enum { RL_F32_7XNR_MR = 7 };

static inline __attribute__((always_inline)) void rl_f32_7xnr_store16(float *const *c, size_t n0, __mmask16 mask,
                                                                       const __m512 *acc, size_t step, __m512 vmin,
                                                                       __m512 vmax) {
    for (int i = RL_F32_7XNR_MR - 1; i >= 0; --i) /* the last row first: aliased rows store the valid row last */
        _mm512_mask_storeu_ps(c[i] + n0, mask, _mm512_min_ps(vmax, _mm512_max_ps(vmin, acc[i * step])));
}

/* tap_stride: the pointers per tap in `indirection` (7 for an IGEMM's blocks; a GEMM passes its 7 rows, ks 1). */
static inline __attribute__((always_inline)) void rl_f32_igemm_7xnr__avx512(
    const size_t NR, size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection, const float *w,
    float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    enum { MR = RL_F32_7XNR_MR };
    float *cr[MR];
    size_t ri[MR]; /* the indirection slot each row reads: rows past mr read the last valid one */
    cr[0] = c;
    ri[0] = 0;
    for (int i = 1; i < MR; ++i) {
        cr[i] = (size_t)i < mr ? cr[i - 1] + c_stride : cr[i - 1];
        ri[i] = (size_t)i < mr ? (size_t)i : ri[i - 1];
    }
    const __m512 vmin = _mm512_set1_ps(params->min);
    const __m512 vmax = _mm512_set1_ps(params->max);

    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t left = nc - n0;
        if (left <= 8) { /* the last panel, 8 columns wide (gemm.h) */
            __m256 acc[MR];
            acc[0] = _mm256_loadu_ps(w);
            for (int i = 1; i < MR; ++i) acc[i] = acc[0];
            w += 8;
            for (size_t p = 0; p < ks; ++p) {
                const float *const *rows = indirection + p * MR;
                const float *a[MR];
                for (int i = 0; i < MR; ++i) a[i] = rows[ri[i]];
                for (size_t k = 0; k < kc; ++k) {
                    const __m256 vw = _mm256_loadu_ps(w);
                    w += 8;
                    for (int i = 0; i < MR; ++i) acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(a[i][k]), vw, acc[i]);
                }
            }
            const __mmask8 mask = (__mmask8)((1u << left) - 1u);
            const __m256 vmin8 = _mm512_castps512_ps256(vmin), vmax8 = _mm512_castps512_ps256(vmax);
            for (int i = MR - 1; i >= 0; --i)
                _mm256_mask_storeu_ps(cr[i] + n0, mask, _mm256_min_ps(vmax8, _mm256_max_ps(vmin8, acc[i])));
            return;
        }
        if (NR == 16 || left <= 16) { /* 16 lanes: a 7x16 panel, or NR 32's last one of 9-16 columns, 16 wide */
            __m512 acc[MR];
            acc[0] = _mm512_loadu_ps(w);
            for (int i = 1; i < MR; ++i) acc[i] = acc[0];
            w += 16;
            for (size_t p = 0; p < ks; ++p) {
                const float *const *rows = indirection + p * MR;
                const float *a[MR];
                for (int i = 0; i < MR; ++i) a[i] = rows[ri[i]];
                for (size_t k = 0; k < kc; ++k) {
                    const __m512 vw = _mm512_loadu_ps(w);
                    w += 16;
                    for (int i = 0; i < MR; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[i][k]), vw, acc[i]);
                }
            }
            const size_t cols = left < 16 ? left : 16;
            rl_f32_7xnr_store16(cr, n0, (__mmask16)((1u << cols) - 1u), acc, 1, vmin, vmax);
            continue;
        }
        __m512 acc[MR * 2]; /* row i: acc[2i] columns 0-15, acc[2i + 1] columns 16-31 */
        acc[0] = _mm512_loadu_ps(w);
        acc[1] = _mm512_loadu_ps(w + 16);
        for (int i = 1; i < MR; ++i) {
            acc[2 * i] = acc[0];
            acc[2 * i + 1] = acc[1];
        }
        w += 32;
        for (size_t p = 0; p < ks; ++p) {
            const float *const *rows = indirection + p * MR;
            const float *a[MR];
            for (int i = 0; i < MR; ++i) a[i] = rows[ri[i]];
            for (size_t k = 0; k < kc; ++k) {
                const __m512 vw0 = _mm512_loadu_ps(w), vw1 = _mm512_loadu_ps(w + 16);
                w += 32;
                for (int i = 0; i < MR; ++i) {
                    const __m512 va = _mm512_set1_ps(a[i][k]);
                    acc[2 * i] = _mm512_fmadd_ps(va, vw0, acc[2 * i]);
                    acc[2 * i + 1] = _mm512_fmadd_ps(va, vw1, acc[2 * i + 1]);
                }
            }
        }
        const size_t cols = left < 32 ? left : 32;
        rl_f32_7xnr_store16(cr, n0, (__mmask16)0xffffu, acc, 2, vmin, vmax);
        rl_f32_7xnr_store16(cr, n0 + 16, (__mmask16)((1u << (cols - 16)) - 1u), acc + 1, 2, vmin, vmax);
    }
}

#endif
