/* f32_gemm_6x8__neon.c — float32 GEMM, 6 rows by 8 columns per step, NEON on aarch64 only (armv7's 16 q
 * registers cannot hold the tile: it keeps f32_gemm_4x8__neon; on armv7 this file compiles to nothing).
 *
 * f32_6x8__neon.h says how the sums run. Rows past mr alias the last valid row: read, never beyond it, and
 * stored again with the same values, so the k loop has no branch. */
#if defined(__aarch64__)
#include "f32_6x8__neon.h"

void f32_gemm_6x8__neon(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,
                        size_t c_stride, const rl_f32_minmax_params *params) {
    const float *rows[MR6];
    float *out[MR6];
    for (size_t i = 0; i < MR6; ++i) {
        rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
        out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    }
    for (size_t n0 = 0; n0 < nc; n0 += NR8) {
        const float32x4_t bias_lo = vld1q_f32(w), bias_hi = vld1q_f32(w + 4);
        float32x4_t acc[2 * MR6] = {bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi,
                                    bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi};
        w = accumulate_6x8(rows, kc, w + NR8, acc);
        float *c_at[MR6];
        for (size_t i = 0; i < MR6; ++i) c_at[i] = out[i] + n0;
        store_6x8(c_at, nc - n0 < NR8 ? nc - n0 : NR8, acc, params);
    }
}
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_f32_gemm_6x8__neon_not_on_armv7;
#endif
