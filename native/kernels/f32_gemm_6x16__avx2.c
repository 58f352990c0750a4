/* f32_gemm_6x16__avx2.c — float32 GEMM, 6 rows by 16 columns per step, AVX2 + FMA: the tile of f32_6x16__avx2.h
 * on one tap, its rows a_stride apart (rows past mr alias the last valid row: read, never beyond it, and their
 * stores land on that row with the same values). */
#include "f32_6x16__avx2.h"

void f32_gemm_6x16__avx2(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w,
                         float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    const float *rows[MR];
    rows[0] = a;
    for (size_t i = 1; i < MR; ++i) rows[i] = mr > i ? rows[i - 1] + a_stride : rows[i - 1];
    igemm_6x16(mr, MR, nc, kc, 1, rows, w, c, c_stride, params);
}
