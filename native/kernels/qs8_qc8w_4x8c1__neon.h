/* qs8_qc8w_4x8c1__neon.h — what the 4x8c1 NEON int8 GEMM and IGEMM (no dot-product instructions) share: the k
 * loop over four rows into 8 int32 accumulators each, and the requantizing stores. Included only by files built
 * with the NEON flags.
 *
 * kr 1: the packed weights hold, for each k, the 8 columns' bytes. Each row's inputs are read 8 bytes at a
 * time (then 4, then one at a time: never past kc) and sign-extended to int16; each k's 8 weights too, and
 * vmlal_lane_s16 multiplies them by one input lane into int32: every product of two int8 fits int16 (even
 * -128 * -128, so weights of -128 are fine, unlike a pairwise vmlal_s8 that would overflow int16), and the
 * int32 adds wrap like the specification's. No horizontal sums. 8 accumulators, 4 extended rows and one
 * weight vector fit armv7's 16 q registers. */
#ifndef RILLET_QS8_QC8W_4X8C1_NEON_H
#define RILLET_QS8_QC8W_4X8C1_NEON_H

#include "qs8_configs.h"
#include "qs8_requantize__neon.h"

enum { MR = 4, NR = 8 };

/* acc[2 i], acc[2 i + 1]: row i's columns 0-3 and 4-7; x[i] holds row i's extended inputs, half picks 4; rows: MR,
 * or 1 (a one-row GEMM, which would otherwise do four rows' work for one). */
#define MLAL_ROWS(acc, w16, x, half, lane, rows)                                                              \
    do {                                                                                                      \
        const int16x4_t w_lo = vget_low_s16(w16), w_hi = vget_high_s16(w16);                                  \
        for (size_t i_ = 0; i_ < (rows); ++i_) {                                                              \
            acc[2 * i_] = vmlal_lane_s16(acc[2 * i_], w_lo, half(x[i_]), lane);                               \
            acc[2 * i_ + 1] = vmlal_lane_s16(acc[2 * i_ + 1], w_hi, half(x[i_]), lane);                       \
        }                                                                                                     \
    } while (0)

static inline int16x8_t load_weights(const int8_t *w) { return vmovl_s8(vld1_s8(w)); }

/* 4 bytes of a row, sign-extended, in the low half. */
static inline int16x8_t load_4(const int8_t *a) {
    uint32_t bits;
    memcpy(&bits, a, sizeof bits);
    return vmovl_s8(vreinterpret_s8_u32(vdup_n_u32(bits)));
}

/* Adds rows a[0..rows)'s kc inputs (rows: MR or 1, a constant where it inlines) times the packed weights at w;
 * returns the weights past them. */
static inline __attribute__((always_inline)) const int8_t *accumulate_4x8c1(const int8_t *const *a, size_t kc,
                                                                           const int8_t *w, int32x4_t *acc,
                                                                           size_t rows) {
    int16x8_t x[MR];
    size_t k = 0;
    for (; k + 8 <= kc; k += 8, w += 8 * NR) {
        for (size_t i = 0; i < rows; ++i) x[i] = vmovl_s8(vld1_s8(a[i] + k));
        MLAL_ROWS(acc, load_weights(w), x, vget_low_s16, 0, rows);
        MLAL_ROWS(acc, load_weights(w + NR), x, vget_low_s16, 1, rows);
        MLAL_ROWS(acc, load_weights(w + 2 * NR), x, vget_low_s16, 2, rows);
        MLAL_ROWS(acc, load_weights(w + 3 * NR), x, vget_low_s16, 3, rows);
        MLAL_ROWS(acc, load_weights(w + 4 * NR), x, vget_high_s16, 0, rows);
        MLAL_ROWS(acc, load_weights(w + 5 * NR), x, vget_high_s16, 1, rows);
        MLAL_ROWS(acc, load_weights(w + 6 * NR), x, vget_high_s16, 2, rows);
        MLAL_ROWS(acc, load_weights(w + 7 * NR), x, vget_high_s16, 3, rows);
    }
    if (k + 4 <= kc) {
        for (size_t i = 0; i < rows; ++i) x[i] = load_4(a[i] + k);
        MLAL_ROWS(acc, load_weights(w), x, vget_low_s16, 0, rows);
        MLAL_ROWS(acc, load_weights(w + NR), x, vget_low_s16, 1, rows);
        MLAL_ROWS(acc, load_weights(w + 2 * NR), x, vget_low_s16, 2, rows);
        MLAL_ROWS(acc, load_weights(w + 3 * NR), x, vget_low_s16, 3, rows);
        k += 4, w += 4 * NR;
    }
    for (; k < kc; ++k, w += NR) {
        const int16x8_t w16 = load_weights(w);
        const int16x4_t w_lo = vget_low_s16(w16), w_hi = vget_high_s16(w16);
        for (size_t i = 0; i < rows; ++i) {
            acc[2 * i] = vmlal_n_s16(acc[2 * i], w_lo, a[i][k]);
            acc[2 * i + 1] = vmlal_n_s16(acc[2 * i + 1], w_hi, a[i][k]);
        }
    }
    return w;
}

/* Requantizes the rows' (MR or 1) 8 sums with the scales at `scales` and writes n (<= 8) columns of each row
 * c[i]. */
static inline __attribute__((always_inline)) void requantize_store_4x8(int8_t *const *c, size_t n,
                                                                       const int32x4_t *acc, const void *scales,
                                                                       const rl_neon_requantization *rq,
                                                                       size_t rows) {
    for (size_t i = rows; i-- > 0;) {
        const int8x8_t v = rl_neon_requantize8(acc[2 * i], acc[2 * i + 1], scales, rq);
        if (n == NR)
            vst1_s8(c[i], v);
        else
            rl_neon_store_partial8(c[i], v, n);
    }
}

#endif
