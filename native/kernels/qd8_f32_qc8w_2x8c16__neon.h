/* qd8_f32_qc8w_2x8c16__neon.h — what the 2x8c16 NEON hybrid GEMM and IGEMM (aarch64 without dot products, filters
 * without a weight of -128) share beyond the int8 tiles' k loop (qs8_qc8w_mrx8c16__neon.h: smull/smlal2 pairs
 * summed pairwise into int32, exact while no weight is -128, whatever the row's bytes; the same panels, with qd8's
 * weight sums where qs8's biases are): each column's 4 lanes added pairwise, then -zero_point * sum(w) per row
 * (int32 adds wrap, so the order does not change the bits), then the float epilogue of qd8_f32_qc8w_4x8c1__neon.h,
 * fused as the scalar kernel's fmaf. Included only by files built with the NEON flags, on aarch64. */
#ifndef RILLET_QD8_F32_QC8W_2X8C16_NEON_H
#define RILLET_QD8_F32_QC8W_2X8C16_NEON_H

#define RL_QS8_C16_NEON_MR 2
#include "qd8_gemm.h"
#include "qs8_qc8w_mrx8c16__neon.h"

/* Row i's 8 columns' sums (acc[8 i .. 8 i + 8), 4 lanes each) less zero_point(i) * the panel's weight sums (at
 * panel), as y = fmaf((float)acc * row scale, weight scale, bias), clamped; n (<= 8) columns of each row c[i]
 * written. tail: the panel's 8 scales, then its 8 biases. Rows are stored last to first, so aliased rows past mr
 * end the same. clamp: 0 where [min, max] is [-inf, inf], whose fmax and fmin would return their input (as in
 * qd8_f32_qc8w_4x16c4__neondot.h). */
static inline __attribute__((always_inline)) void reduce_store_floats(float *const *c, size_t n, const int32x4_t *acc,
                                                                      const unsigned char *panel,
                                                                      const unsigned char *tail,
                                                                      const rl_qd8_row_quantization *const *rq,
                                                                      const rl_f32_minmax_params *params,
                                                                      size_t rows, int clamp) {
    const int32x4_t ksum_lo = rl_neon_load_s32(panel), ksum_hi = rl_neon_load_s32(panel + 16);
    const float32x4_t scale_lo = rl_neon_load_f32(tail), scale_hi = rl_neon_load_f32(tail + 16);
    const float32x4_t bias_lo = rl_neon_load_f32(tail + 32), bias_hi = rl_neon_load_f32(tail + 48);
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    for (size_t i = rows; i-- > 0;) {
        const int32x4_t *r = acc + 8 * i;
        const int32_t zero_point = rq[i]->zero_point;
        const int32x4_t lo = vmlsq_n_s32(vpaddq_s32(vpaddq_s32(r[0], r[1]), vpaddq_s32(r[2], r[3])), ksum_lo, zero_point);
        const int32x4_t hi = vmlsq_n_s32(vpaddq_s32(vpaddq_s32(r[4], r[5]), vpaddq_s32(r[6], r[7])), ksum_hi, zero_point);
        float32x4x2_t v = {{vfmaq_f32(bias_lo, vmulq_n_f32(vcvtq_f32_s32(lo), rq[i]->scale), scale_lo),
                            vfmaq_f32(bias_hi, vmulq_n_f32(vcvtq_f32_s32(hi), rq[i]->scale), scale_hi)}};
        if (clamp) {
            v.val[0] = vminq_f32(vmaxq_f32(v.val[0], vmin), vmax);
            v.val[1] = vminq_f32(vmaxq_f32(v.val[1], vmin), vmax);
        }
        if (n == NR) { /* a whole panel's row straight to c, a partial one through y */
            vst1q_f32_x2(c[i], v);
        } else {
            float y[NR];
            vst1q_f32_x2(y, v);
            memcpy(c[i], y, n * sizeof(float));
        }
    }
}

/* The IGEMM over rows (MR, or 1 for a block of one row) of each tap: tap p's rows are indirection[p * MR + i] (only
 * the first mr read; rows past mr alias the last real one), each tap's kc rounded up to 16 in the packed weights; tap
 * 0 starts the accumulators. A GEMM is the IGEMM of one tap over its own rows (mr MR and ks 1, constants once
 * inlined), so the two entry points share one panel loop. */
static inline __attribute__((always_inline)) void qd8_igemm_rows(size_t rows, size_t mr, size_t nc, size_t kc,
                                                                 size_t ks, const int8_t *const *indirection,
                                                                 const void *w, float *const *out,
                                                                 const rl_qd8_row_quantization *const *rq,
                                                                 const rl_f32_minmax_params *params) {
    const int clamp = rl_f32_minmax_clamps(params);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        int32x4_t acc[8 * MR];
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        {
            const int8_t *a[MR];
            rl_qd8_tap_rows(MR, mr, indirection, a);
            wk = accumulate_c16(a, kc, wk, acc, rows, 1);
        }
        for (size_t p = 1; p < ks; ++p) {
            const int8_t *a[MR];
            rl_qd8_tap_rows(MR, mr, indirection + p * MR, a);
            wk = accumulate_c16(a, kc, wk, acc, rows, 0);
        }
        float *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        reduce_store_floats(c_at, nc - n0 < NR ? nc - n0 : NR, acc, panel, (const unsigned char *)wk, rq, params,
                            rows, clamp);
        panel = (const unsigned char *)wk + 2 * NR * sizeof(float);
    }
}

/* The GEMM's tile body for RL_QD8_GEMM_ONE_ROW_OR_TILE: its rows as the one tap. */
static inline __attribute__((always_inline)) void qd8_gemm_rows(size_t rows, size_t nc, size_t kc,
                                                                const int8_t *const *a, const void *w,
                                                                float *const *out,
                                                                const rl_qd8_row_quantization *const *rq,
                                                                const rl_f32_minmax_params *params) {
    qd8_igemm_rows(rows, MR, nc, kc, 1, a, w, out, rq, params);
}

#endif
