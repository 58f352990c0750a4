/* qs8_qc8w_4x16c4__neondot.h — what the 4x16c4 dot-product int8 GEMM and IGEMM share: the k loop over four rows
 * into 16 int32 accumulators each, and the requantizing stores. The hybrid (qd8) 4x16c4 kernels run the same k
 * loop on the same panels' weights (qd8_f32_qc8w_4x16c4__neondot.h): one loop for both families, as
 * qs8_qc8w_4x8c1__neon.h serves the 4x8c1 ones. Included only by files built with the NEONDOT flags (armv8.2-a +
 * dotprod, aarch64 only).
 *
 * kr 4: each block of 4 k holds, column by column, 4 weight bytes, so 64 bytes are 16 columns x 4 k: four
 * q registers. sdot by lane (vdotq_lane_s32) adds, to each column's int32, the dot product of its 4 weights
 * with 4 bytes of the row: signed by signed, so no input offset is needed (unlike x86's VNNI), every 4-product
 * sum is exact and the adds wrap like the specification's. A row is read 16 bytes (4 blocks) at a time, then
 * 8, then 4, then a last partial block of 1-3 bytes without reading past kc (its weights are packed as zeros). 16
 * accumulators, 8 weight and 4 input registers: 28 of aarch64's 32. A last panel of at most 8 columns is
 * packed 8 wide (gemm.h): 32 bytes a block, two q registers, and only the first two accumulators of a row. */
#ifndef RILLET_QS8_QC8W_4X16C4_NEONDOT_H
#define RILLET_QS8_QC8W_4X16C4_NEONDOT_H

/* As f32_6x8__neon.h: gcc's first scheduling pass stretches the 16 accumulators' live ranges until the
 * allocator copies some of them every k step; without it the loop is the loads, the sdots and the loop test. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#include "qs8_configs.h"
#include "qs8_requantize__neon.h"

enum { MR = 4, NR = 16, NARROW_NR = 8 };

/* acc[4 i + q]: row i's columns 4q .. 4q + 3; w0..w3 one block's weights (w0, w1 when not wide); x[i] row i's
 * 8 or 16 bytes (dot: vdotq_lane_s32 or vdotq_laneq_s32); rows: MR, or 1 (a one-row GEMM, which would otherwise do four rows' work for one). */
#define DOT_ROWS(acc, w, x, lane, wide, rows, dot)                                                            \
    do {                                                                                                      \
        for (size_t i_ = 0; i_ < (rows); ++i_) {                                                              \
            acc[4 * i_] = dot(acc[4 * i_], w[0], x[i_], lane);                                                \
            acc[4 * i_ + 1] = dot(acc[4 * i_ + 1], w[1], x[i_], lane);                                        \
            if (wide) {                                                                                       \
                acc[4 * i_ + 2] = dot(acc[4 * i_ + 2], w[2], x[i_], lane);                                    \
                acc[4 * i_ + 3] = dot(acc[4 * i_ + 3], w[3], x[i_], lane);                                    \
            }                                                                                                 \
        }                                                                                                     \
    } while (0)

static inline void load_block(const int8_t *w, int8x16_t *block, int wide) {
    block[0] = vld1q_s8(w), block[1] = vld1q_s8(w + 16);
    if (wide) block[2] = vld1q_s8(w + 32), block[3] = vld1q_s8(w + 48);
}

/* A panel's biases into every row's accumulators: 16 columns, or the 8 of a narrow panel (the rest zero). */
static inline void load_biases(const unsigned char *panel, int wide, int32x4_t *acc) {
    for (size_t q = 0; q < 4; ++q) {
        const int32x4_t bias = q < 2 || wide ? rl_neon_load_s32(panel + 16 * q) : vdupq_n_s32(0);
        for (size_t i = 0; i < MR; ++i) acc[4 * i + q] = bias;
    }
}

/* A row's bytes k .. kc (1 to 4 of them) in the low 4 bytes, zeros above, reading only the row. */
static inline int8x8_t load_last_block(const int8_t *row, size_t k, size_t kc) {
    uint32_t bits;
    if (k + 4 <= kc) {
        memcpy(&bits, row + k, sizeof bits);
    } else if (kc >= 4) {
        memcpy(&bits, row + kc - 4, sizeof bits);
        bits >>= 8 * (k + 4 - kc);
    } else {
        bits = 0;
        for (size_t i = k; i < kc; ++i) bits |= (uint32_t)(uint8_t)row[i] << (8 * (i - k));
    }
    return vreinterpret_s8_u32(vdup_n_u32(bits));
}

/* Two rows' (row, row + 1) 8 accumulators plus one block of a wide panel's weights (wv, 16 columns x 4 k) times
 * lane `lane` of each row's 16 bytes: 8 sdots by lane as one asm statement. Given the same sdots as
 * intrinsics, gcc's allocator copied 4-6 accumulators between registers every 16-byte step (mov v, v); tied
 * operands keep each accumulator in one register. */
#define DOT_2ROWS_LANE(acc, row, wv, xa, xb, lane)                                                             \
    __asm__(                                                                                                  \
        "sdot %[c0].4s, %[w0].16b, %[x0].4b[" #lane "]\n\t"  \
        "sdot %[c1].4s, %[w1].16b, %[x0].4b[" #lane "]\n\t"  \
        "sdot %[c2].4s, %[w2].16b, %[x0].4b[" #lane "]\n\t"  \
        "sdot %[c3].4s, %[w3].16b, %[x0].4b[" #lane "]\n\t"  \
        "sdot %[c4].4s, %[w0].16b, %[x1].4b[" #lane "]\n\t"  \
        "sdot %[c5].4s, %[w1].16b, %[x1].4b[" #lane "]\n\t"  \
        "sdot %[c6].4s, %[w2].16b, %[x1].4b[" #lane "]\n\t"  \
        "sdot %[c7].4s, %[w3].16b, %[x1].4b[" #lane "]\n\t"                                                                                                  \
        : [c0] "+w"(acc[4 * (row) + 0]), [c1] "+w"(acc[4 * (row) + 1]), [c2] "+w"(acc[4 * (row) + 2]), [c3] "+w"(acc[4 * (row) + 3]), [c4] "+w"(acc[4 * (row) + 4]), [c5] "+w"(acc[4 * (row) + 5]), [c6] "+w"(acc[4 * (row) + 6]), [c7] "+w"(acc[4 * (row) + 7])                                                                                    \
        : [w0] "w"(wv.val[0]), [w1] "w"(wv.val[1]), [w2] "w"(wv.val[2]), [w3] "w"(wv.val[3]), [x0] "w"(xa), [x1] "w"(xb))

/* 64 weight bytes into four consecutive registers, advancing w. gcc addressed vld1q_s8_x4(w + 64 * j) by adding
 * to a copy of w before each load (an instruction each, four of a 16-byte step's 80), where ld1's post-index
 * steps w for nothing: 76 a step, XNNPACK's ld128 assembly 86 (16 single-register weight loads). The operand
 * modifiers naming a register list's first and last registers (%S, %V) are gcc's. */
#if defined(__GNUC__) && !defined(__clang__)
#define LOAD_W64(v, w) __asm__("ld1 {%S0.16b - %V0.16b}, [%1], #64" : "=w"(v), "+r"(w) : : "memory")
#else
#define LOAD_W64(v, w) ((v) = vld1q_s8_x4(w), (w) += 64)
#endif

/* One 16-byte step of four rows into all 16 accumulators of a wide panel: the 256 weight bytes as four ld1 of
 * four registers (LOAD_W64), then 64 sdots by lane. Returns the weights past the step. */
static inline __attribute__((always_inline)) const int8_t *dot_step16_4x16(int32x4_t *acc, const int8x16_t *x,
                                                                          const int8_t *w) {
    int8x16x4_t w0;
    LOAD_W64(w0, w);
    DOT_2ROWS_LANE(acc, 0, w0, x[0], x[1], 0);
    DOT_2ROWS_LANE(acc, 2, w0, x[2], x[3], 0);
    int8x16x4_t w1;
    LOAD_W64(w1, w);
    DOT_2ROWS_LANE(acc, 0, w1, x[0], x[1], 1);
    DOT_2ROWS_LANE(acc, 2, w1, x[2], x[3], 1);
    int8x16x4_t w2;
    LOAD_W64(w2, w);
    DOT_2ROWS_LANE(acc, 0, w2, x[0], x[1], 2);
    DOT_2ROWS_LANE(acc, 2, w2, x[2], x[3], 2);
    int8x16x4_t w3;
    LOAD_W64(w3, w);
    DOT_2ROWS_LANE(acc, 0, w3, x[0], x[1], 3);
    DOT_2ROWS_LANE(acc, 2, w3, x[2], x[3], 3);
    return w;
}

/* One block (4 k) of a wide panel for four rows: lane `lane` of each row's x, by the same tied asm. */
#define DOT_BLOCK_4X16(acc, w, x, lane)                                                                       \
    do {                                                                                                      \
        const int8x16x4_t wv_ = vld1q_s8_x4(w);                                                               \
        DOT_2ROWS_LANE(acc, 0, wv_, (x)[0], (x)[1], lane);                                                    \
        DOT_2ROWS_LANE(acc, 2, wv_, (x)[2], (x)[3], lane);                                                    \
    } while (0)

/* Adds rows a[0..rows)'s kc inputs (rows: MR or 1, a constant where it inlines) times the packed weights at w
 * (NR columns, NARROW_NR when not wide); returns the weights past them (kc rounded up to 4). The main step
 * reads 16 bytes of each row (4 blocks: 4 input and 16 weight loads per 64 sdots; 8 bytes a step took 8 input
 * loads and twice the loop's counting for the same 64), then one 8-byte step, then 4-byte blocks. */
static inline __attribute__((always_inline)) const int8_t *accumulate_4x16c4(const int8_t *const *a, size_t kc,
                                                                            const int8_t *w, int32x4_t *acc,
                                                                            int wide, size_t rows) {
    const size_t width = wide ? NR : NARROW_NR;
    int8x16_t block[4];
    size_t k = 0;
    if (wide && rows == MR) {
        for (; k + 16 <= kc; k += 16) {
            const int8x16_t x[MR] = {vld1q_s8(a[0] + k), vld1q_s8(a[1] + k), vld1q_s8(a[2] + k), vld1q_s8(a[3] + k)};
            w = dot_step16_4x16(acc, x, w);
        }
    }
    for (; k + 16 <= kc; k += 16, w += 16 * width) {
        int8x16_t x[MR];
        for (size_t i = 0; i < rows; ++i) x[i] = vld1q_s8(a[i] + k);
        load_block(w, block, wide);
        DOT_ROWS(acc, block, x, 0, wide, rows, vdotq_laneq_s32);
        load_block(w + 4 * width, block, wide);
        DOT_ROWS(acc, block, x, 1, wide, rows, vdotq_laneq_s32);
        load_block(w + 8 * width, block, wide);
        DOT_ROWS(acc, block, x, 2, wide, rows, vdotq_laneq_s32);
        load_block(w + 12 * width, block, wide);
        DOT_ROWS(acc, block, x, 3, wide, rows, vdotq_laneq_s32);
    }
    /* Most 1x1 convolutions' depths are multiples of 16: one test here instead of the three tails' (2.7% of a
     * 4x16 tile's instructions at kc 16). */
    if ((kc & 15) == 0) return w;
    int8x8_t x[MR];
    if (k + 8 <= kc) {
        for (size_t i = 0; i < rows; ++i) x[i] = vld1_s8(a[i] + k);
        if (wide && rows == MR) {
            DOT_BLOCK_4X16(acc, w, x, 0);
            DOT_BLOCK_4X16(acc, w + 64, x, 1);
        } else {
            load_block(w, block, wide);
            DOT_ROWS(acc, block, x, 0, wide, rows, vdotq_lane_s32);
            load_block(w + 4 * width, block, wide);
            DOT_ROWS(acc, block, x, 1, wide, rows, vdotq_lane_s32);
        }
        k += 8, w += 8 * width;
    }
    /* A whole block, then a partial one; written out rather than as a loop, which made gcc keep the
     * accumulators in memory across it. */
    if (k + 4 <= kc) {
        for (size_t i = 0; i < rows; ++i) {
            uint32_t bits;
            memcpy(&bits, a[i] + k, sizeof bits);
            x[i] = vreinterpret_s8_u32(vdup_n_u32(bits));
        }
        if (wide && rows == MR) {
            DOT_BLOCK_4X16(acc, w, x, 0);
        } else {
            load_block(w, block, wide);
            DOT_ROWS(acc, block, x, 0, wide, rows, vdotq_lane_s32);
        }
        k += 4, w += 4 * width;
    }
    if (k < kc) {
        for (size_t i = 0; i < rows; ++i) x[i] = load_last_block(a[i], k, kc);
        if (wide && rows == MR) {
            DOT_BLOCK_4X16(acc, w, x, 0);
        } else {
            load_block(w, block, wide);
            DOT_ROWS(acc, block, x, 0, wide, rows, vdotq_lane_s32);
        }
        w += 4 * width;
    }
    return w;
}

/* Requantizes the rows' (MR or 1) 16 sums with the scales at `scales` and writes n (<= 16) columns of each row
 * c[i]. The scales are loaded once for every row: the int8 stores may alias them, so the compiler would reload
 * them per row. */
static inline __attribute__((always_inline)) void requantize_store_4x16(int8_t *const *c, size_t n,
                                                                        const int32x4_t *acc, const void *scales,
                                                                        const rl_neon_requantization *rq,
                                                                        size_t rows) {
    const unsigned char *s = scales;
    const float32x4_t s0 = rl_neon_load_f32(s), s1 = rl_neon_load_f32(s + 16);
    float32x4_t s2 = s0, s3 = s1; /* a narrow panel has only 8 scales */
    if (n > NARROW_NR) s2 = rl_neon_load_f32(s + 32), s3 = rl_neon_load_f32(s + 48);
    /* Unrolled, so every accumulator is indexed by a constant and stays in a register (a loop over the rows
     * made gcc keep all 16 in memory for the whole tile). */
#pragma GCC unroll 4
    for (size_t i = rows; i-- > 0;) {
        const int16x8_t lo = rl_neon_requantize_s16(acc[4 * i], acc[4 * i + 1], s0, s1, rq);
        int8_t *out = c[i];
        if (n == NR) {
            vst1q_s8(out, rl_neon_clamp16(lo, rl_neon_requantize_s16(acc[4 * i + 2], acc[4 * i + 3], s2, s3, rq), rq));
        } else if (n > 8) {
            const int8x16_t v =
                rl_neon_clamp16(lo, rl_neon_requantize_s16(acc[4 * i + 2], acc[4 * i + 3], s2, s3, rq), rq);
            vst1_s8(out, vget_low_s8(v));
            rl_neon_store_partial8(out + 8, vget_high_s8(v), n - 8);
        } else {
            const int8x8_t v = vmin_s8(vmax_s8(vqmovn_s16(lo), vget_low_s8(rq->vmin8)), vget_low_s8(rq->vmax8));
            if (n == 8)
                vst1_s8(out, v);
            else
                rl_neon_store_partial8(out, v, n);
        }
    }
}

#endif
