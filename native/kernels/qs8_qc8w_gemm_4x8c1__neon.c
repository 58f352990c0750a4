/* qs8_qc8w_gemm_4x8c1__neon.c — int8 GEMM, per-channel int8 weights, 4 rows x 8 columns, kr 1, NEON without
 * dot products (aarch64 and armv7): the widening multiply-adds of qs8_qc8w_4x8c1__neon.h, then the fp32
 * requantization of qs8_requantize__neon.h, bit for bit with the scalar kernel. Rows past mr alias the last
 * real one: computed twice, stored twice with the same bytes, never read past. One row (a batch-1 1x1
 * convolution of one pixel: a squeeze-and-excite block's, a classifier's) runs the same loop on one row's
 * accumulators instead of four rows' work for one. */
#include "qs8_qc8w_4x8c1__neon.h"

static inline __attribute__((always_inline)) void gemm_rows(size_t rows, size_t nc, size_t kc,
                                                            const int8_t *const *a, const void *w,
                                                            int8_t *const *out, const rl_neon_requantization *rq) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const int32x4_t bias_lo = rl_neon_load_s32(panel), bias_hi = rl_neon_load_s32(panel + 16);
        int32x4_t acc[2 * MR] = {bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi};
        const int8_t *scales = accumulate_4x8c1(a, kc, (const int8_t *)(panel + NR * sizeof(int32_t)), acc, rows);
        int8_t *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        requantize_store_4x8(c_at, nc - n0 < NR ? nc - n0 : NR, acc, scales, rq, rows);
        panel = (const unsigned char *)scales + NR * sizeof(float);
    }
}

void qs8_qc8w_gemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                               int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    const int8_t *rows[MR];
    int8_t *out[MR];
    for (size_t i = 0; i < MR; ++i) {
        rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
        out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    }
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    if (mr == 1)
        gemm_rows(1, nc, kc, rows, w, out, &rq);
    else
        gemm_rows(MR, nc, kc, rows, w, out, &rq);
}
