/* qs8_requantize__neon.h — the int8 NEON kernels' requantization and partial stores: rl_requantize_fp32 on 4, 8
 * or 16 int32 sums at once, bit for bit. Included only by files built with the NEON flags.
 *
 * rl_neon_requantize4 (every path): the sum goes to float rounding to nearest (vcvtq_f32_s32), is multiplied by
 * the channel's scale, clamped to [min - zero point, max - zero point] in float (the bounds are integers, so this
 * equals clamping after rounding), then rounded to nearest with ties to even: aarch64 has vcvtnq_s32_f32; armv7
 * converts only by truncation, so it adds 1.5 * 2^23, after which the float has no fraction bits left
 * (|v| <= 255), and takes the integer from the bits, as the scalar kernel does. armv7 NEON flushes subnormal
 * products to zero, which rounds to the same 0. The zero point is added in int32; the saturating narrowings are
 * then exact.
 *
 * rl_neon_requantize8/16 on aarch64 clamp last, in int8, as XNNPACK's neonv8 kernels do: round the scaled sum
 * (vcvtnq saturates to int32), narrow to int16 saturating, add the zero point saturating, narrow to int8
 * saturating, then max/min with the output's bounds. Every step is monotone and exact wherever the rounded value
 * plus the zero point lies within [min, max] (|value| <= 255 there), and the bounds are values the chain reaches
 * exactly, so the clamp gives the same bytes as clamping first: 5 instructions per 4 sums fewer (no float
 * max/min per 4 sums, no int32 add; one int8 max/min per 16). armv7 cannot round without the float clamp
 * (the 1.5 * 2^23 trick needs |v| < 2^22), so it keeps rl_neon_requantize4's order. */
#ifndef RILLET_QS8_REQUANTIZE_NEON_H
#define RILLET_QS8_REQUANTIZE_NEON_H

#include <arm_neon.h>
#include <string.h>

#include "gemm.h"

typedef struct {
    float32x4_t vmin, vmax; /* min_less_zero_point, max_less_zero_point */
    int32x4_t vzero_point;
    int16x8_t vzero_point16; /* the same three for aarch64's clamp after narrowing */
    int8x16_t vmin8, vmax8;
} rl_neon_requantization;

/* From the clamp's bounds less the zero point (integers held in floats) and the zero point. */
static inline rl_neon_requantization rl_neon_requantization_make(float min_less_zero_point,
                                                                 float max_less_zero_point, int32_t zero_point) {
    const rl_neon_requantization rq = {vdupq_n_f32(min_less_zero_point), vdupq_n_f32(max_less_zero_point),
                                       vdupq_n_s32(zero_point), vdupq_n_s16((int16_t)zero_point),
                                       vdupq_n_s8((int8_t)((int32_t)min_less_zero_point + zero_point)),
                                       vdupq_n_s8((int8_t)((int32_t)max_less_zero_point + zero_point))};
    return rq;
}

/* Read once per call: stores through int8_t pointers could alias params, so the compiler would reload them. */
static inline rl_neon_requantization rl_neon_requantization_of(const rl_qs8_requantization_params *params) {
    return rl_neon_requantization_make(params->min_less_zero_point, params->max_less_zero_point,
                                       params->output_zero_point);
}

static inline int32x4_t rl_neon_requantize4(int32x4_t vacc, float32x4_t vscale, const rl_neon_requantization *rq) {
    float32x4_t v = vmulq_f32(vcvtq_f32_s32(vacc), vscale);
    v = vminq_f32(vmaxq_f32(v, rq->vmin), rq->vmax);
#if defined(__aarch64__)
    const int32x4_t vrounded = vcvtnq_s32_f32(v);
#else
    const int32x4_t vrounded = vsubq_s32(vreinterpretq_s32_f32(vaddq_f32(v, vdupq_n_f32(12582912.0f))),
                                         vdupq_n_s32(0x4B400000));
#endif
    return vaddq_s32(vrounded, rq->vzero_point);
}

/* 4 int32 or float fields of a packed block, which need not be 4-byte aligned (byte loads). */
static inline int32x4_t rl_neon_load_s32(const void *p) { return vreinterpretq_s32_u8(vld1q_u8((const uint8_t *)p)); }
static inline float32x4_t rl_neon_load_f32(const void *p) {
    return vreinterpretq_f32_u8(vld1q_u8((const uint8_t *)p));
}

#if defined(__aarch64__)
/* 8 sums scaled by slo, shi, rounded, narrowed and offset by the zero point: int16, not yet clamped. */
static inline int16x8_t rl_neon_requantize_s16(int32x4_t lo, int32x4_t hi, float32x4_t slo, float32x4_t shi,
                                               const rl_neon_requantization *rq) {
    const int32x4_t qlo = vcvtnq_s32_f32(vmulq_f32(vcvtq_f32_s32(lo), slo));
    const int32x4_t qhi = vcvtnq_s32_f32(vmulq_f32(vcvtq_f32_s32(hi), shi));
    return vqaddq_s16(vqmovn_high_s32(vqmovn_s32(qlo), qhi), rq->vzero_point16);
}

/* 16 int16 from rl_neon_requantize_s16 to clamped int8. */
static inline int8x16_t rl_neon_clamp16(int16x8_t lo, int16x8_t hi, const rl_neon_requantization *rq) {
    return vminq_s8(vmaxq_s8(vqmovn_high_s16(vqmovn_s16(lo), hi), rq->vmin8), rq->vmax8);
}
#endif

/* 8 sums (columns 0-3 in lo, 4-7 in hi) with the 8 float scales at `scales`, to 8 int8. */
static inline int8x8_t rl_neon_requantize8(int32x4_t lo, int32x4_t hi, const void *scales,
                                           const rl_neon_requantization *rq) {
#if defined(__aarch64__)
    const int16x8_t q = rl_neon_requantize_s16(lo, hi, rl_neon_load_f32(scales),
                                               rl_neon_load_f32((const uint8_t *)scales + 16), rq);
    return vmin_s8(vmax_s8(vqmovn_s16(q), vget_low_s8(rq->vmin8)), vget_low_s8(rq->vmax8));
#else
    const int32x4_t qlo = rl_neon_requantize4(lo, rl_neon_load_f32(scales), rq);
    const int32x4_t qhi = rl_neon_requantize4(hi, rl_neon_load_f32((const uint8_t *)scales + 16), rq);
    return vqmovn_s16(vcombine_s16(vqmovn_s32(qlo), vqmovn_s32(qhi)));
#endif
}

/* 16 sums (columns 4q .. 4q + 3 in acc[q]) with the 16 float scales at `scales`, to 16 int8. */
static inline int8x16_t rl_neon_requantize16(const int32x4_t *acc, const void *scales,
                                             const rl_neon_requantization *rq) {
    const uint8_t *s = (const uint8_t *)scales;
#if defined(__aarch64__)
    const int16x8_t lo = rl_neon_requantize_s16(acc[0], acc[1], rl_neon_load_f32(s), rl_neon_load_f32(s + 16), rq);
    const int16x8_t hi =
        rl_neon_requantize_s16(acc[2], acc[3], rl_neon_load_f32(s + 32), rl_neon_load_f32(s + 48), rq);
    return rl_neon_clamp16(lo, hi, rq);
#else
    return vcombine_s8(rl_neon_requantize8(acc[0], acc[1], s, rq), rl_neon_requantize8(acc[2], acc[3], s + 32, rq));
#endif
}

/* Writes the first n (< 8) bytes of v at c. */
static inline void rl_neon_store_partial8(int8_t *c, int8x8_t v, size_t n) {
    if (n & 4) {
        const uint32_t part = vget_lane_u32(vreinterpret_u32_s8(v), 0);
        memcpy(c, &part, sizeof part);
        c += 4;
        v = vext_s8(v, v, 4);
    }
    if (n & 2) {
        const uint16_t part = vget_lane_u16(vreinterpret_u16_s8(v), 0);
        memcpy(c, &part, sizeof part);
        c += 2;
        v = vext_s8(v, v, 2);
    }
    if (n & 1) vst1_lane_s8(c, v, 0);
}

#endif
