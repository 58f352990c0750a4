/* qs8_qc8w_igemm_4x8c1__neon.c — int8 IGEMM (rows through an indirection buffer), per-channel int8 weights, 4
 * rows x 8 columns, kr 1, NEON without dot products (aarch64 and armv7).
 *
 * As qs8_qc8w_gemm_4x8c1__neon, with the k loop walking the ks taps' rows in turn (tap p's rows are
 * indirection[p * MR + i]); with kr 1 no tap's depth is padded, so any kc runs straight from the input. Only
 * the first mr pointers of each tap are read: rows past mr alias the last real one. */
#include "qs8_qc8w_4x8c1__neon.h"

void qs8_qc8w_igemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, int8_t *c, size_t c_stride,
                                const rl_qs8_requantization_params *params) {
    int8_t *out[MR];
    for (size_t i = 0; i < MR; ++i) out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const int32x4_t bias_lo = rl_neon_load_s32(panel), bias_hi = rl_neon_load_s32(panel + 16);
        int32x4_t acc[2 * MR] = {bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi, bias_lo, bias_hi};
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *const *tap = indirection + p * MR;
            const int8_t *rows[MR];
            for (size_t i = 0; i < MR; ++i) rows[i] = tap[i < mr ? i : mr - 1];
            wk = accumulate_4x8c1(rows, kc, wk, acc, MR);
        }
        int8_t *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        requantize_store_4x8(c_at, nc - n0 < NR ? nc - n0 : NR, acc, wk, &rq, MR);
        panel = (const unsigned char *)wk + NR * sizeof(float);
    }
}
