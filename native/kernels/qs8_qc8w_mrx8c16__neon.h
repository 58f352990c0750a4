/* qs8_qc8w_mrx8c16__neon.h — the one template of the aarch64 NEON int8 GEMM and IGEMM tiles without dot
 * products for filters without a weight of -128: MR rows (RL_QS8_C16_NEON_MR, 1 or 2, defined by the including
 * file) by 8 columns, kr 16, the k loop into 8 MR int32 accumulators, the pairwise reduction and the requantizing
 * stores of qs8_requantize__neon.h (the same bits as the scalar kernel). Included only by files built with the
 * NEON flags, on aarch64 (smull2/smlal2 on q registers, 32 of them): qs8_qc8w_gemm_2x8c16__neon.c and
 * qs8_qc8w_igemm_2x8c16__neon.c.
 *
 * Why pairs and c16. The kr-1 tile (qs8_qc8w_4x8c1__neon.h) multiplies 4 products per instruction (smlal by lane
 * on int16) after sign-extending every input and weight: about 0.34 instructions per multiply-add. Here, per 16 k
 * of a row and a column (one 16-byte register of each: kr 16 puts a column's 16 k side by side), smull multiplies
 * the low 8 bytes into 8 int16 products, smlal2 adds the high 8 bytes' products to them, and sadalp adds the 8
 * int16 pairs into the column's 4 int32 lanes: 3 instructions per 16 products, with no lane moves. Two products
 * of int8 fit int16 only while neither is 16384 = -128 * -128: with weights in [-127, 127] two sum to at most
 * 2 * 128 * 127 = 32512, so the drivers run this tile only for constant filters without -128
 * (rl_qs8_gemm_pairs_config_for) and keep the exact kr-1 tile for the others. Per 16 k of 2 rows: 2 input
 * loads, 2 loads of 4 weight registers (128 bytes: the 8 columns' 16 k), 16 smull, 16 smlal2 and 16 sadalp: 58
 * instructions with the loop's, against about 60 for XNNPACK's aarch64 default plain-NEON int8 tile (2x8 of the
 * same multiply pairs, on kr 8). 16 accumulators, 4 columns' weights at a time and 2 rows fit the 32 registers.
 * A last block of 1-15 k loads only kc's bytes (the packed weights are zero past kc; 8 or fewer skip smlal2), so
 * no input is read past its row and no padded product is computed.
 * The first block's pair sums start the accumulators (saddlp: no zeroing per tile); each column's 4 lanes are
 * added pairwise at the end (addp), then the bias: int32 sums wrap as the specification's in any order. */
#ifndef RILLET_QS8_QC8W_MRX8C16_NEON_H
#define RILLET_QS8_QC8W_MRX8C16_NEON_H

#if !defined(RL_QS8_C16_NEON_MR) || RL_QS8_C16_NEON_MR < 1 || RL_QS8_C16_NEON_MR > 2
#error "define RL_QS8_C16_NEON_MR as 1 or 2 before including qs8_qc8w_mrx8c16__neon.h"
#endif

/* gcc 12's scheduling before register allocation computes every product of a step before adding any, which
 * needs more than 32 q registers and spills accumulators to the stack each step (f32_mrx8__neon.h saw the same);
 * without it each product is added as it is made. The scheduling after allocation still runs. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#include <string.h>

#include "qs8_configs.h"
#include "qs8_requantize__neon.h"

enum { MR = RL_QS8_C16_NEON_MR, NR = 8, KR = 16 };

/* n (1-7) bytes at a in the low lanes, zero above them: exactly n bytes read, in pieces of 4, 2 and 1 (a memcpy
 * of n bytes is a libc call: a first layer's rows of 9 bytes end in one). */
static inline int8x8_t load_partial8(const int8_t *a, size_t n) {
    uint64_t bits = 0;
    size_t at = 0;
    if (n & 4) {
        uint32_t part;
        memcpy(&part, a, sizeof part);
        bits = part, at = 4;
    }
    if (n & 2) {
        uint16_t part;
        memcpy(&part, a + at, sizeof part);
        bits |= (uint64_t)part << (8 * at), at += 2;
    }
    if (n & 1) bits |= (uint64_t)(uint8_t)a[at] << (8 * at);
    return vreinterpret_s8_u64(vdup_n_u64(bits));
}

/* Row i's products with column j into acc[8 i + j]: added to it, or (first) starting it, so the accumulators need
 * no zeroing per tile. */
#define ADD_PAIRS(acc, idx, p, first) ((acc)[idx] = (first) ? vpaddlq_s16(p) : vpadalq_s16((acc)[idx], p))

static inline void load_columns(const int8_t *w, int8x16_t *w8) {
    const int8x16x4_t lo = vld1q_s8_x4(w), hi = vld1q_s8_x4(w + 64);
    w8[0] = lo.val[0], w8[1] = lo.val[1], w8[2] = lo.val[2], w8[3] = lo.val[3];
    w8[4] = hi.val[0], w8[5] = hi.val[1], w8[6] = hi.val[2], w8[7] = hi.val[3];
}

/* 16 k of rows a[0..rows) from k, times the 16-k block of 8 columns at w, into (or, first, starting) acc. */
static inline __attribute__((always_inline)) void full_block(const int8_t *const *a, size_t k, const int8_t *w,
                                                             int32x4_t *acc, size_t rows, int first) {
    int8x16_t x[MR];
    for (size_t i = 0; i < rows; ++i) x[i] = vld1q_s8(a[i] + k);
    for (size_t half = 0; half < NR; half += 4) { /* 4 columns' weights live at a time: no spills */
        const int8x16x4_t w4 = vld1q_s8_x4(w + half * KR);
        for (size_t j = 0; j < 4; ++j)
            for (size_t i = 0; i < rows; ++i) {
                /* two k's products per int16 lane: exact for weights in [-127, 127] (see above) */
                const int16x8_t p = vmlal_high_s8(vmull_s8(vget_low_s8(w4.val[j]), vget_low_s8(x[i])), w4.val[j], x[i]);
                ADD_PAIRS(acc, 8 * i + half + j, p, first);
            }
    }
}

/* As full_block for the last left (< 16) k of the rows: only their bytes read; 8 or fewer skip the high halves. */
static inline __attribute__((always_inline)) void last_block(const int8_t *const *a, size_t k, size_t left,
                                                             const int8_t *w, int32x4_t *acc, size_t rows, int first) {
    if (left <= 8) {
        int8x8_t x8[MR];
        for (size_t i = 0; i < rows; ++i) x8[i] = left == 8 ? vld1_s8(a[i] + k) : load_partial8(a[i] + k, left);
        for (size_t half = 0; half < NR; half += 4) {
            const int8x16x4_t w4 = vld1q_s8_x4(w + half * KR);
            for (size_t j = 0; j < 4; ++j)
                for (size_t i = 0; i < rows; ++i)
                    ADD_PAIRS(acc, 8 * i + half + j, vmull_s8(vget_low_s8(w4.val[j]), x8[i]), first);
        }
    } else {
        int8x16_t x[MR];
        for (size_t i = 0; i < rows; ++i) x[i] = vcombine_s8(vld1_s8(a[i] + k), load_partial8(a[i] + k + 8, left - 8));
        for (size_t half = 0; half < NR; half += 4) {
            const int8x16x4_t w4 = vld1q_s8_x4(w + half * KR);
            for (size_t j = 0; j < 4; ++j)
                for (size_t i = 0; i < rows; ++i) {
                    const int16x8_t p =
                        vmlal_high_s8(vmull_s8(vget_low_s8(w4.val[j]), vget_low_s8(x[i])), w4.val[j], x[i]);
                    ADD_PAIRS(acc, 8 * i + half + j, p, first);
                }
        }
    }
}

/* Adds rows a[0..rows)'s kc inputs (rows: MR or 1, a constant where it inlines) times the packed weights at w (kc
 * rounded up to 16) into acc[8 i + j], or with first (a constant too) starts acc with them (its first block runs
 * whatever kc, so every accumulator is written); returns the weights past them. */
static inline __attribute__((always_inline)) const int8_t *accumulate_c16(const int8_t *const *a, size_t kc,
                                                                         const int8_t *w, int32x4_t *acc,
                                                                         size_t rows, int first) {
    size_t k = 0;
    if (first) {
        if (kc < 16) {
            last_block(a, 0, kc, w, acc, rows, 1);
            return w + KR * NR;
        }
        full_block(a, 0, w, acc, rows, 1);
        k = 16, w += KR * NR;
    }
    for (; k + 16 <= kc; k += 16, w += KR * NR) full_block(a, k, w, acc, rows, 0);
    if (k < kc) {
        last_block(a, k, kc - k, w, acc, rows, 0);
        w += KR * NR;
    }
    return w;
}

/* Row i's 8 columns' sums (acc[8 i .. 8 i + 8), 4 lanes each) plus the panel's biases, requantized with the
 * scales at `scales`; n (<= 8) columns of each row c[i] written. */
static inline __attribute__((always_inline)) void reduce_store(int8_t *const *c, size_t n, const int32x4_t *acc,
                                                               const unsigned char *bias, const void *scales,
                                                               const rl_neon_requantization *rq, size_t rows) {
    const int32x4_t bias_lo = rl_neon_load_s32(bias), bias_hi = rl_neon_load_s32(bias + 16);
    for (size_t i = rows; i-- > 0;) {
        const int32x4_t *r = acc + 8 * i;
        const int32x4_t lo = vaddq_s32(vpaddq_s32(vpaddq_s32(r[0], r[1]), vpaddq_s32(r[2], r[3])), bias_lo);
        const int32x4_t hi = vaddq_s32(vpaddq_s32(vpaddq_s32(r[4], r[5]), vpaddq_s32(r[6], r[7])), bias_hi);
        const int8x8_t v = rl_neon_requantize8(lo, hi, scales, rq);
        if (n == NR)
            vst1_s8(c[i], v);
        else
            rl_neon_store_partial8(c[i], v, n);
    }
}

/* The GEMM over rows (MR or 1) of a; rows past mr alias the last real one. */
static inline __attribute__((always_inline)) void gemm_rows(size_t rows, size_t nc, size_t kc,
                                                            const int8_t *const *a, const void *w,
                                                            int8_t *const *out, const rl_neon_requantization *rq) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        int32x4_t acc[8 * MR];
        const int8_t *scales = accumulate_c16(a, kc, (const int8_t *)(panel + NR * sizeof(int32_t)), acc, rows, 1);
        int8_t *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        reduce_store(c_at, nc - n0 < NR ? nc - n0 : NR, acc, panel, scales, rq, rows);
        panel = (const unsigned char *)scales + NR * sizeof(float);
    }
}

static inline void gemm(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w, int8_t *c,
                        size_t c_stride, const rl_qs8_requantization_params *params) {
    const int8_t *rows[MR];
    int8_t *out[MR];
    for (size_t i = 0; i < MR; ++i) {
        rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
        out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    }
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    if (MR > 1 && mr == 1)
        gemm_rows(1, nc, kc, rows, w, out, &rq);
    else
        gemm_rows(MR, nc, kc, rows, w, out, &rq);
}

/* The IGEMM: the k loop walks the ks taps' rows in turn (tap p's rows are indirection[p * MR + i]), each tap's kc
 * rounded up to 16 in the packed weights. Only the first mr pointers of each tap are read; one row runs one row's
 * accumulators, as the GEMM. */
static inline __attribute__((always_inline)) void igemm_rows(size_t rows, size_t mr, size_t nc, size_t kc,
                                                             size_t ks, const int8_t *const *indirection,
                                                             const void *w, int8_t *const *out,
                                                             const rl_neon_requantization *rq) {
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        int32x4_t acc[8 * MR];
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        for (size_t p = 0; p < ks || p == 0; ++p) { /* ks >= 1: tap 0 starts the accumulators */
            const int8_t *const *tap = indirection + p * MR;
            const int8_t *a[MR];
            for (size_t i = 0; i < MR; ++i) a[i] = tap[i < mr ? i : mr - 1];
            if (p == 0)
                wk = accumulate_c16(a, kc, wk, acc, rows, 1);
            else
                wk = accumulate_c16(a, kc, wk, acc, rows, 0);
        }
        int8_t *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        reduce_store(c_at, nc - n0 < NR ? nc - n0 : NR, acc, panel, wk, rq, rows);
        panel = (const unsigned char *)wk + NR * sizeof(float);
    }
}

static inline void igemm(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection, const void *w,
                         int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    int8_t *out[MR];
    for (size_t i = 0; i < MR; ++i) out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    if (MR > 1 && mr == 1)
        igemm_rows(1, mr, nc, kc, ks, indirection, w, out, &rq);
    else
        igemm_rows(MR, mr, nc, kc, ks, indirection, w, out, &rq);
}

#endif
