/* f32_mrx8__neon.h — the one template of the NEON float32 GEMM and IGEMM tiles: MR rows (RL_F32_NEON_MR, 1, 4 or
 * 6, defined by the including file) by 8 columns, the k loop into 2 MR accumulators and the clamped stores.
 * Included only by files built with the NEON flags: f32_gemm_1x8__neon.c, f32_gemm_4x8__neon.c and
 * f32_igemm_4x8__neon.c (armv7 and aarch64), f32_gemm_6x8__neon.c and f32_igemm_6x8__neon.c (aarch64 only).
 *
 * Why 6 rows on aarch64: per 4 k the 4x8 tile spends 4 input and 8 weight loads on 32 multiply-adds, the 6x8
 * tile 6 and 8 on 48, so a long k loop runs about 6% fewer instructions (XNNPACK's default aarch64 float GEMM
 * is this 6x8 shape). 12 accumulators, 2 weight vectors and 6 input vectors need 20 of aarch64's 32 q
 * registers; armv7 has 16, so it keeps 4x8.
 *
 * Per k, one pair of weight loads (8 columns) feeds 2 MR multiply-adds by one lane of each row's inputs, read
 * 4 floats at a time while 4 remain, then one at a time: never past kc. aarch64 fuses them
 * (vfmaq_laneq_f32); armv7 NEON has no fused multiply-add by lane, so it uses vmlaq_lane_f32, which rounds
 * after the multiply and after the add as the scalar kernel does (and flushes subnormals to zero, as armv7
 * NEON always does: far below the 1e-6 tolerance). Every sum runs k ascending from the bias, whatever MR, so
 * results do not change with the tile. */
#ifndef RILLET_F32_MRX8_NEON_H
#define RILLET_F32_MRX8_NEON_H

#if !defined(RL_F32_NEON_MR) || (RL_F32_NEON_MR != 1 && RL_F32_NEON_MR != 4 && RL_F32_NEON_MR != 6)
#error "define RL_F32_NEON_MR as 1, 4 or 6 before including f32_mrx8__neon.h"
#endif

/* gcc 12's first scheduling pass (before register allocation) stretches the 6x8 tile's 12 accumulators' live
 * ranges so that the allocator copies two or three of them each k step (mov v.16b). Without it the loop is the
 * loads, the fmlas and the loop test; the scheduling after allocation still runs. Only the functions of the
 * files that include this header for 6 rows. */
#if defined(__GNUC__) && !defined(__clang__) && RL_F32_NEON_MR == 6
#pragma GCC optimize("no-schedule-insns")
#endif

#include <arm_neon.h>

#include "f32_microkernels.h"

enum { MR = RL_F32_NEON_MR, NR = 8 };

#if defined(__aarch64__)
#define MULADD_LANE(acc, w, x, lane) vfmaq_laneq_f32(acc, w, x, lane)
#else
#define MULADD_LANE(acc, w, x, lane) \
    vmlaq_lane_f32(acc, w, (lane) < 2 ? vget_low_f32(x) : vget_high_f32(x), (lane) & 1)
#endif

/* acc[2 i], acc[2 i + 1]: row i's columns 0-3 and 4-7. */
#define MULADD_ROWS(acc, wl, wh, x, lane)                                                                     \
    do {                                                                                                      \
        for (size_t i_ = 0; i_ < MR; ++i_) {                                                                  \
            acc[2 * i_] = MULADD_LANE(acc[2 * i_], wl, x[i_], lane);                                          \
            acc[2 * i_ + 1] = MULADD_LANE(acc[2 * i_ + 1], wh, x[i_], lane);                                  \
        }                                                                                                     \
    } while (0)

/* Adds rows a[0..MR)'s kc inputs times the packed weights at w; returns the weights past them. The 4-k loop
 * stops on the weight pointer, so it steps that pointer and one offset and tests one compare: 62 instructions
 * per 48 multiply-adds on aarch64 (a separate k counter made it 64; XNNPACK's assembly, which steps every row's
 * pointer in its load, 60). */
static inline const float *accumulate(const float *const *a, size_t kc, const float *w, float32x4_t *acc) {
    const size_t k4 = kc & ~(size_t)3;
    const float *const w_end = w + k4 * NR;
    for (size_t k = 0; w != w_end; k += 4) {
        float32x4_t x[MR];
        for (size_t i = 0; i < MR; ++i) x[i] = vld1q_f32(a[i] + k);
        MULADD_ROWS(acc, vld1q_f32(w), vld1q_f32(w + 4), x, 0);
        MULADD_ROWS(acc, vld1q_f32(w + 8), vld1q_f32(w + 12), x, 1);
        MULADD_ROWS(acc, vld1q_f32(w + 16), vld1q_f32(w + 20), x, 2);
        MULADD_ROWS(acc, vld1q_f32(w + 24), vld1q_f32(w + 28), x, 3);
        w += 4 * NR;
    }
    for (size_t k = k4; k < kc; ++k) { /* k4 does not depend on the tile: no count recovered from w */
        float32x4_t x[MR];
        for (size_t i = 0; i < MR; ++i) x[i] = vld1q_dup_f32(a[i] + k);
        MULADD_ROWS(acc, vld1q_f32(w), vld1q_f32(w + 4), x, 0);
        w += NR;
    }
    return w;
}

/* Clamps the MR x 8 accumulators and writes the first `cols` (<= 8) columns of each row c[i], then steps each
 * c[i] past the 8 columns; rows past mr alias a real one, and write its values again (last row first, so the
 * real row's store comes last). The clamp's bounds come in registers, loaded once per call (loaded here, gcc
 * reloaded them every tile: it cannot tell the stores from the parameters), and the row pointers step by 8 (a
 * pair store each). With the k remainder's start known before the loop (not recovered from w), a 6x8 tile
 * runs about 10 instructions fewer around its k loop: MobileNetV2's 16-deep 112x112 expansion 8.34M -> 8.19M
 * instructions per invoke under qemu (XNNPACK 7.51M). */
static inline void store(float **c, size_t cols, const float32x4_t *acc, float32x4_t vmin, float32x4_t vmax) {
    for (size_t i = MR; i-- > 0;) {
        float32x4_t lo = vminq_f32(vmaxq_f32(acc[2 * i], vmin), vmax);
        const float32x4_t hi = vminq_f32(vmaxq_f32(acc[2 * i + 1], vmin), vmax);
        float *out = c[i];
        c[i] += NR;
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

/* The GEMM: mr (<= MR) rows of a, a_stride floats apart. Rows past mr alias the last valid row: read, never
 * beyond it, and stored again with the same values, so the k loop has no branch. */
static inline void gemm(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,
                        size_t c_stride, const rl_f32_minmax_params *params) {
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    const float *rows[MR];
    float *out[MR];
    for (size_t i = 0; i < MR; ++i) {
        rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
        out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    }
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const float32x4_t bias_lo = vld1q_f32(w), bias_hi = vld1q_f32(w + 4);
        float32x4_t acc[2 * MR];
        for (size_t i = 0; i < MR; ++i) acc[2 * i] = bias_lo, acc[2 * i + 1] = bias_hi;
        w = accumulate(rows, kc, w + NR, acc);
        store(out, nc - n0 < NR ? nc - n0 : NR, acc, vmin, vmax);
    }
}

/* The IGEMM: the k loop walks the ks taps' rows in turn (tap p's rows are indirection[p * MR + i]), so one sum
 * runs over ks * kc products in packed order. Only the first mr pointers of each tap are read: rows past mr
 * alias the last valid one. */
static inline void igemm(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                         const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    float *out[MR];
    for (size_t i = 0; i < MR; ++i) out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const float32x4_t bias_lo = vld1q_f32(w), bias_hi = vld1q_f32(w + 4);
        float32x4_t acc[2 * MR];
        for (size_t i = 0; i < MR; ++i) acc[2 * i] = bias_lo, acc[2 * i + 1] = bias_hi;
        w += NR;
        for (size_t p = 0; p < ks; ++p) {
            const float *const *tap = indirection + p * MR;
            const float *rows[MR];
            for (size_t i = 0; i < MR; ++i) rows[i] = tap[i < mr ? i : mr - 1];
            w = accumulate(rows, kc, w, acc);
        }
        store(out, nc - n0 < NR ? nc - n0 : NR, acc, vmin, vmax);
    }
}

#endif
