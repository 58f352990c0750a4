/* f32_igemm_4x8__neon.c — float32 indirect GEMM (convolution through row pointers), 4 rows by 8 columns per
 * step, NEON (aarch64 and armv7).
 *
 * As f32_gemm_4x8__neon, with the k loop walking the ks taps' rows in turn (tap p's rows are
 * indirection[p * MR + i]), so one sum runs over ks * kc products in packed order. Only the first mr pointers
 * of each tap are read: rows past mr alias the last valid one. */
#include "f32_4x8__neon.h"

void f32_igemm_4x8__neon(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                         const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    float *out[MR];
    for (size_t i = 0; i < MR; ++i) out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const float32x4_t bias_lo = vld1q_f32(w), bias_hi = vld1q_f32(w + 4);
        float32x4_t acc[2 * MR] = {bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi};
        w += NR;
        for (size_t p = 0; p < ks; ++p) {
            const float *const *tap = indirection + p * MR;
            const float *rows[MR];
            for (size_t i = 0; i < MR; ++i) rows[i] = tap[i < mr ? i : mr - 1];
            w = accumulate_4x8(rows, kc, w, acc);
        }
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        store_4x8(c_at, nc - n0 < NR ? nc - n0 : NR, acc, params);
    }
}
