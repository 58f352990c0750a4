/* qd8_f32_qc8w_4x16c4__neondot.h — what the 4x16c4 dot-product hybrid GEMM and IGEMM share beyond the int8
 * kernels' k loop (qs8_qc8w_4x16c4__neondot.h: sdot by lane on kr 4, exact 4-product sums, wrapping int32 adds;
 * qd8_gemm.h's panels hold the weights exactly as the int8 ones, with the same 8-wide narrow last panel): the
 * accumulators' start, -zero_point * sum(w) per row, and the float epilogue of qd8_f32_qc8w_4x8c1__neon.h in 16
 * columns, fused as the scalar kernel's fmaf. Included only by files built with the NEONDOT flags. */
#ifndef RILLET_QD8_F32_QC8W_4X16C4_NEONDOT_H
#define RILLET_QD8_F32_QC8W_4X16C4_NEONDOT_H

#include "qd8_gemm.h"
#include "qs8_qc8w_4x16c4__neondot.h"

/* acc[4 i + q] (row i's columns 4q .. 4q + 3) = -zero_point(i) * the panel's weight sums; a narrow panel has 8
 * sums, and its upper accumulators, never added to nor stored, start at zero. */
static inline __attribute__((always_inline)) void start_accumulators(const unsigned char *panel, int wide,
                                                                     const rl_qd8_row_quantization *const *rq,
                                                                     int32x4_t *acc, size_t rows) {
    for (size_t q = 0; q < 4; ++q) {
        const int32x4_t ksum = q < 2 || wide ? rl_neon_load_s32(panel + 16 * q) : vdupq_n_s32(0);
        for (size_t i = 0; i < rows; ++i) acc[4 * i + q] = vmulq_n_s32(ksum, -rq[i]->zero_point);
    }
}

/* y = fmaf((float)acc * row scale, weight scale, bias), clamped; n (<= 16) columns of each row c[i]. tail: the
 * panel's scales, then its biases (width of each: 16, or 8 for a narrow panel). Rows are stored last to first, so
 * aliased rows past mr end the same. clamp: 0 where [min, max] is [-inf, inf] (a FULLY_CONNECTED or BATCH_MATMUL
 * without activation, which most of a transformer's are): fmax and fmin would return their input, so they are
 * left out (a third of the epilogue's vector instructions). A whole wide row is one st1 of four registers, and
 * the 16 scales and biases two ld1 of four (bert_tiny_dynamic's 128 -> 128 FULLY_CONNECTED on 64 tokens, Cortex-A76:
 * the epilogue is a sixth of the tile's instructions at kc 128). */
static inline __attribute__((always_inline)) void store_floats_4x16(float *const *c, size_t n, int wide,
                                                                    const int32x4_t *acc, const unsigned char *tail,
                                                                    const rl_qd8_row_quantization *const *rq,
                                                                    const rl_f32_minmax_params *params,
                                                                    size_t rows, int clamp) {
    const size_t width = wide ? NR : NARROW_NR, quads = width / 4;
    float32x4_t scale[4], bias[4];
    if (wide) {
        const float32x4x4_t s = vld1q_f32_x4((const float *)(const void *)tail);
        const float32x4x4_t b = vld1q_f32_x4((const float *)(const void *)(tail + 4 * NR));
        for (size_t q = 0; q < 4; ++q) scale[q] = s.val[q], bias[q] = b.val[q];
    } else {
        for (size_t q = 0; q < quads; ++q) {
            scale[q] = rl_neon_load_f32(tail + 16 * q);
            bias[q] = rl_neon_load_f32(tail + 4 * width + 16 * q);
        }
    }
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    /* A whole panel's row goes straight to c; a partial one through y, its n floats copied (never past the row). */
    const int whole = n == width;
#pragma GCC unroll 4
    for (size_t i = rows; i-- > 0;) {
        float32x4x4_t y;
        for (size_t q = 0; q < quads; ++q) {
            const float32x4_t scaled = vmulq_n_f32(vcvtq_f32_s32(acc[4 * i + q]), rq[i]->scale);
            y.val[q] = vfmaq_f32(bias[q], scaled, scale[q]);
            if (clamp) y.val[q] = vminq_f32(vmaxq_f32(y.val[q], vmin), vmax);
        }
        if (whole && wide) {
            vst1q_f32_x4(c[i], y);
        } else if (whole) {
            vst1q_f32_x2(c[i], (float32x4x2_t){{y.val[0], y.val[1]}});
        } else {
            float part[NR];
            for (size_t q = 0; q < quads; ++q) vst1q_f32(part + 4 * q, y.val[q]);
            memcpy(c[i], part, n * sizeof(float));
        }
    }
}

/* The IGEMM over rows (MR, or 1 for a block of one row) of each tap: tap p's rows are indirection[p * MR + i] (only
 * the first mr read; rows past mr alias the last real one), each tap's depth packed rounded up to 4, its partial
 * last block read without passing kc. A GEMM is the IGEMM of one tap over its own rows (mr MR and ks 1,
 * constants once inlined), so the two entry points share one panel loop. */
static inline __attribute__((always_inline)) void igemm_rows(size_t rows, size_t mr, size_t nc, size_t kc, size_t ks,
                                                             const int8_t *const *indirection, const void *w,
                                                             float *const *out,
                                                             const rl_qd8_row_quantization *const *rq,
                                                             const rl_f32_minmax_params *params) {
    const int clamp = rl_f32_minmax_clamps(params);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t n = nc - n0 < NR ? nc - n0 : NR, width = n > NARROW_NR ? NR : NARROW_NR;
        const int wide = width == NR;
        int32x4_t acc[4 * MR];
        start_accumulators(panel, wide, rq, acc, rows);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *in[MR];
            rl_qd8_tap_rows(MR, mr, indirection + p * MR, in);
            /* Two call sites, so each inlines with its width a constant. */
            wk = wide ? accumulate_4x16c4(in, kc, wk, acc, 1, rows) : accumulate_4x16c4(in, kc, wk, acc, 0, rows);
        }
        const unsigned char *tail = (const unsigned char *)wk;
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        if (wide)
            store_floats_4x16(c_at, n, 1, acc, tail, rq, params, rows, clamp);
        else
            store_floats_4x16(c_at, n, 0, acc, tail, rq, params, rows, clamp);
        panel = tail + 2 * width * sizeof(float);
    }
}

/* The GEMM's tile body for RL_QD8_GEMM_ONE_ROW_OR_TILE: its rows as the one tap. */
static inline __attribute__((always_inline)) void gemm_rows(size_t rows, size_t nc, size_t kc, const int8_t *const *in,
                                                            const void *w, float *const *out,
                                                            const rl_qd8_row_quantization *const *rq,
                                                            const rl_f32_minmax_params *params) {
    igemm_rows(rows, MR, nc, kc, 1, in, w, out, rq, params);
}

#endif
