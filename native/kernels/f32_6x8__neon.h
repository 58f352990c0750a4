/* f32_6x8__neon.h — what the aarch64 6x8 NEON float32 GEMM and IGEMM share: the k loop over six rows into twelve
 * accumulators, and the clamped stores. Included only by files built for aarch64.
 *
 * Why 6 rows on aarch64: per 4 k the 4x8 tile spends 4 input and 8 weight loads on 32 multiply-adds, the 6x8
 * tile 6 and 8 on 48, so a long k loop runs about 6% fewer instructions (XNNPACK's default aarch64 float
 * GEMM is this 6x8 shape). 12 accumulators, 2 weight vectors and 6 input vectors need 20 of aarch64's 32 q
 * registers; armv7 has 16, so it keeps the 4x8 tile. Each sum is the 4x8 tile's, in the same order (bias,
 * then k ascending, one vfmaq_laneq_f32 per product), so the results do not change with the tile. */
#ifndef RILLET_F32_6X8_NEON_H
#define RILLET_F32_6X8_NEON_H

/* gcc 12's first scheduling pass (before register allocation) stretches the 12 accumulators' live ranges so
 * that the allocator copies two or three of them each k step (mov v.16b; 66 instructions per 48 multiply-adds
 * instead of 64). Without it the loop is the loads, the fmlas and the loop test; the scheduling after
 * allocation still runs. Only the functions of the files that include this header (the 6x8 kernels). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#include <arm_neon.h>

#include "f32_microkernels.h"

enum { MR6 = 6, NR8 = 8 };

/* acc[2 i], acc[2 i + 1]: row i's columns 0-3 and 4-7. */
#define MULADD_ROWS6(acc, wl, wh, x, lane)                                                                    \
    do {                                                                                                      \
        for (size_t i_ = 0; i_ < MR6; ++i_) {                                                                 \
            acc[2 * i_] = vfmaq_laneq_f32(acc[2 * i_], wl, x[i_], lane);                                      \
            acc[2 * i_ + 1] = vfmaq_laneq_f32(acc[2 * i_ + 1], wh, x[i_], lane);                              \
        }                                                                                                     \
    } while (0)

/* Adds rows a[0..MR6)'s kc inputs times the packed weights at w; returns the weights past them. */
static inline const float *accumulate_6x8(const float *const *a, size_t kc, const float *w, float32x4_t *acc) {
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
        float32x4_t x[MR6];
        for (size_t i = 0; i < MR6; ++i) x[i] = vld1q_f32(a[i] + k);
        MULADD_ROWS6(acc, vld1q_f32(w), vld1q_f32(w + 4), x, 0);
        MULADD_ROWS6(acc, vld1q_f32(w + 8), vld1q_f32(w + 12), x, 1);
        MULADD_ROWS6(acc, vld1q_f32(w + 16), vld1q_f32(w + 20), x, 2);
        MULADD_ROWS6(acc, vld1q_f32(w + 24), vld1q_f32(w + 28), x, 3);
        w += 4 * NR8;
    }
    for (; k < kc; ++k) {
        float32x4_t x[MR6];
        for (size_t i = 0; i < MR6; ++i) x[i] = vld1q_dup_f32(a[i] + k);
        MULADD_ROWS6(acc, vld1q_f32(w), vld1q_f32(w + 4), x, 0);
        w += NR8;
    }
    return w;
}

/* Clamps the MR6 x 8 accumulators and writes the first `cols` (<= 8) columns of each row c[i]; rows past mr
 * alias a real one, and write its values again (last row first, so the real row's store comes last). */
static inline void store_6x8(float *const *c, size_t cols, const float32x4_t *acc, const rl_f32_minmax_params *params) {
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    for (size_t i = MR6; i-- > 0;) {
        float32x4_t lo = vminq_f32(vmaxq_f32(acc[2 * i], vmin), vmax);
        const float32x4_t hi = vminq_f32(vmaxq_f32(acc[2 * i + 1], vmin), vmax);
        float *out = c[i];
        if (cols == NR8) {
            vst1q_f32(out, lo);
            vst1q_f32(out + 4, hi);
            continue;
        }
        if (cols & 4) {
            vst1q_f32(out, lo);
            lo = hi;
            out += 4;
        }
        float32x2_t part = vget_low_f32(lo);
        if (cols & 2) {
            vst1_f32(out, part);
            part = vget_high_f32(lo);
            out += 2;
        }
        if (cols & 1) vst1_lane_f32(out, part, 0);
    }
}

#endif
