/* qd8_f32_qc8w_4x8c1__neon.h — what the 4x8c1 NEON hybrid GEMM and IGEMM share beyond the int8 kernels' k loop
 * (qs8_qc8w_4x8c1__neon.h: widening multiply-adds on kr 1, exact, wrapping int32 sums; the same packed weights):
 * the accumulators' start, -zero_point * sum(w) per row, and the float epilogue, fused as the scalar kernel's
 * fmaf (vfmaq_f32: aarch64, and armv7's NEON-VFPv4). Included only by files built with the NEON flags. */
#ifndef RILLET_QD8_F32_QC8W_4X8C1_NEON_H
#define RILLET_QD8_F32_QC8W_4X8C1_NEON_H

#include "qd8_gemm.h"
#include "qs8_qc8w_4x8c1__neon.h"

/* acc[2 i], acc[2 i + 1] (row i's columns 0-3, 4-7) = -zero_point(i) * the panel's weight sums. */
static inline void start_accumulators(const unsigned char *panel, const rl_qd8_row_quantization *const *rq,
                                      int32x4_t *acc) {
    const int32x4_t ksum_lo = rl_neon_load_s32(panel), ksum_hi = rl_neon_load_s32(panel + 16);
    for (size_t i = 0; i < MR; ++i) {
        acc[2 * i] = vmulq_n_s32(ksum_lo, -rq[i]->zero_point);
        acc[2 * i + 1] = vmulq_n_s32(ksum_hi, -rq[i]->zero_point);
    }
}

/* y = fmaf((float)acc * row scale, weight scale, bias), clamped; n (<= 8) columns of each row c[i]. tail: the
 * panel's 8 scales, then its 8 biases. Rows are stored last to first, so aliased rows past mr end the same. */
static inline void store_floats_4x8(float *const *c, size_t n, const int32x4_t *acc, const unsigned char *tail,
                                    const rl_qd8_row_quantization *const *rq, const rl_f32_minmax_params *params) {
    const float32x4_t scale_lo = rl_neon_load_f32(tail), scale_hi = rl_neon_load_f32(tail + 16);
    const float32x4_t bias_lo = rl_neon_load_f32(tail + 32), bias_hi = rl_neon_load_f32(tail + 48);
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    for (size_t i = MR; i-- > 0;) {
        const float32x4_t lo = vmulq_n_f32(vcvtq_f32_s32(acc[2 * i]), rq[i]->scale);
        const float32x4_t hi = vmulq_n_f32(vcvtq_f32_s32(acc[2 * i + 1]), rq[i]->scale);
        float y[8];
        vst1q_f32(y, vminq_f32(vmaxq_f32(vfmaq_f32(bias_lo, lo, scale_lo), vmin), vmax));
        vst1q_f32(y + 4, vminq_f32(vmaxq_f32(vfmaq_f32(bias_hi, hi, scale_hi), vmin), vmax));
        memcpy(c[i], y, n * sizeof(float));
    }
}

/* The IGEMM tile: tap p's rows are indirection[p * MR + i] (only the first mr read; rows past mr alias the last real
 * one). A GEMM is the IGEMM of one tap over its own rows (mr MR and ks 1, constants once inlined), so the two entry
 * points share one panel loop. */
static inline __attribute__((always_inline)) void igemm_4x8c1(size_t mr, size_t nc, size_t kc, size_t ks,
                                                              const int8_t *const *indirection, const void *w,
                                                              float *const *out,
                                                              const rl_qd8_row_quantization *const *rq,
                                                              const rl_f32_minmax_params *params) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        int32x4_t acc[2 * MR];
        start_accumulators(panel, rq, acc);
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *in[MR];
            rl_qd8_tap_rows(MR, mr, indirection + p * MR, in);
            wk = accumulate_4x8c1(in, kc, wk, acc, MR);
        }
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        store_floats_4x8(c_at, nc - n0 < NR ? nc - n0 : NR, acc, (const unsigned char *)wk, rq, params);
        panel = (const unsigned char *)wk + 2 * NR * sizeof(float);
    }
}

#endif
