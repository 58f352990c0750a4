/* f32_4x8__neon.h — what the 4x8 NEON float32 GEMM and IGEMM share: the k loop over four rows into eight
 * accumulators, and the clamped stores. Included only by files built with the NEON flags.
 *
 * Per k, one pair of weight loads (8 columns) feeds 8 multiply-adds by one lane of each row's inputs, read
 * 4 floats at a time while 4 remain, then one at a time: never past kc. aarch64 fuses them
 * (vfmaq_laneq_f32); armv7 NEON has no fused multiply-add by lane, so it uses vmlaq_lane_f32, which rounds
 * after the multiply and after the add as the scalar kernel does (and flushes subnormals to zero, as armv7
 * NEON always does: far below the 1e-6 tolerance). Every sum runs k ascending from the bias. */
#ifndef RILLET_F32_4X8_NEON_H
#define RILLET_F32_4X8_NEON_H

#include <arm_neon.h>

#include "f32_microkernels.h"

enum { MR = 4, NR = 8 };

#if defined(__aarch64__)
#define MULADD_LANE(acc, w, x, lane) vfmaq_laneq_f32(acc, w, x, lane)
#else
#define MULADD_LANE(acc, w, x, lane) \
    vmlaq_lane_f32(acc, w, (lane) < 2 ? vget_low_f32(x) : vget_high_f32(x), (lane) & 1)
#endif

/* acc[2 i], acc[2 i + 1]: row i's columns 0-3 and 4-7. */
#define MULADD_ROWS(acc, wl, wh, x, lane)                                                                     \
    do {                                                                                                      \
        acc[0] = MULADD_LANE(acc[0], wl, x[0], lane), acc[1] = MULADD_LANE(acc[1], wh, x[0], lane);           \
        acc[2] = MULADD_LANE(acc[2], wl, x[1], lane), acc[3] = MULADD_LANE(acc[3], wh, x[1], lane);           \
        acc[4] = MULADD_LANE(acc[4], wl, x[2], lane), acc[5] = MULADD_LANE(acc[5], wh, x[2], lane);           \
        acc[6] = MULADD_LANE(acc[6], wl, x[3], lane), acc[7] = MULADD_LANE(acc[7], wh, x[3], lane);           \
    } while (0)

/* Adds rows a[0..MR)'s kc inputs times the packed weights at w; returns the weights past them. */
static inline const float *accumulate_4x8(const float *const *a, size_t kc, const float *w, float32x4_t *acc) {
    size_t k = 0;
    for (; k + 4 <= kc; k += 4) {
        const float32x4_t x[MR] = {vld1q_f32(a[0] + k), vld1q_f32(a[1] + k), vld1q_f32(a[2] + k),
                                   vld1q_f32(a[3] + k)};
        MULADD_ROWS(acc, vld1q_f32(w), vld1q_f32(w + 4), x, 0);
        MULADD_ROWS(acc, vld1q_f32(w + 8), vld1q_f32(w + 12), x, 1);
        MULADD_ROWS(acc, vld1q_f32(w + 16), vld1q_f32(w + 20), x, 2);
        MULADD_ROWS(acc, vld1q_f32(w + 24), vld1q_f32(w + 28), x, 3);
        w += 4 * NR;
    }
    for (; k < kc; ++k) {
        const float32x4_t x[MR] = {vld1q_dup_f32(a[0] + k), vld1q_dup_f32(a[1] + k), vld1q_dup_f32(a[2] + k),
                                   vld1q_dup_f32(a[3] + k)};
        MULADD_ROWS(acc, vld1q_f32(w), vld1q_f32(w + 4), x, 0);
        w += NR;
    }
    return w;
}

/* Clamps the MR x 8 accumulators and writes the first `cols` (<= 8) columns of each row c[i]; rows past mr
 * alias a real one, and write its values again. */
static inline void store_4x8(float *const *c, size_t cols, const float32x4_t *acc, const rl_f32_minmax_params *params) {
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    for (size_t i = MR; i-- > 0;) {
        float32x4_t lo = vminq_f32(vmaxq_f32(acc[2 * i], vmin), vmax);
        const float32x4_t hi = vminq_f32(vmaxq_f32(acc[2 * i + 1], vmin), vmax);
        float *out = c[i];
        if (cols == NR) {
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
