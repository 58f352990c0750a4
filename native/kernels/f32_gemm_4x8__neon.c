/* f32_gemm_4x8__neon.c — float32 GEMM, 4 rows by 8 columns per step, NEON (aarch64 and armv7).
 *
 * 8 accumulators, 2 weight vectors and 4 rows of 4 inputs fit armv7's 16 q registers as well as aarch64's 32
 * (f32_4x8__neon.h says how the sums run). Rows past mr alias the last valid row: read, never beyond it, and
 * stored again with the same values, so the k loop has no branch. */
#include "f32_4x8__neon.h"

void f32_gemm_4x8__neon(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,
                        size_t c_stride, const rl_f32_minmax_params *params) {
    const float *rows[MR];
    float *out[MR];
    for (size_t i = 0; i < MR; ++i) {
        rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
        out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    }
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const float32x4_t bias_lo = vld1q_f32(w), bias_hi = vld1q_f32(w + 4);
        float32x4_t acc[2 * MR] = {bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi};
        w = accumulate_4x8(rows, kc, w + NR, acc);
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        store_4x8(c_at, nc - n0 < NR ? nc - n0 : NR, acc, params);
    }
}
