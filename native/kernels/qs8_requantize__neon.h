/* qs8_requantize__neon.h — the int8 NEON kernels' requantization and partial stores: rl_requantize_fp32 on 8
 * int32 sums at once, bit for bit. Included only by files built with the NEON flags.
 *
 * The sum goes to float rounding to nearest (vcvtq_f32_s32), is multiplied by the channel's scale, clamped to
 * [min - zero point, max - zero point] in float (the bounds are integers, so this equals clamping after
 * rounding), then rounded to nearest with ties to even: aarch64 has vcvtnq_s32_f32; armv7 converts only by
 * truncation, so it adds 1.5 * 2^23, after which the float has no fraction bits left (|v| <= 255), and takes
 * the integer from the bits, as the scalar kernel does. armv7 NEON flushes subnormal products to zero, which
 * rounds to the same 0. The zero point is added in int32; the saturating narrowings are then exact. */
#ifndef RILLET_QS8_REQUANTIZE_NEON_H
#define RILLET_QS8_REQUANTIZE_NEON_H

#include <arm_neon.h>
#include <string.h>

#include "gemm.h"

typedef struct {
    float32x4_t vmin, vmax; /* min_less_zero_point, max_less_zero_point */
    int32x4_t vzero_point;
} rl_neon_requantization;

/* Read once per call: stores through int8_t pointers could alias params, so the compiler would reload them. */
static inline rl_neon_requantization rl_neon_requantization_of(const rl_qs8_requantization_params *params) {
    const rl_neon_requantization rq = {vdupq_n_f32(params->min_less_zero_point),
                                       vdupq_n_f32(params->max_less_zero_point),
                                       vdupq_n_s32(params->output_zero_point)};
    return rq;
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

/* 8 sums (columns 0-3 in lo, 4-7 in hi) with the 8 float scales at `scales`, to 8 int8. */
static inline int8x8_t rl_neon_requantize8(int32x4_t lo, int32x4_t hi, const void *scales,
                                           const rl_neon_requantization *rq) {
    const int32x4_t qlo = rl_neon_requantize4(lo, rl_neon_load_f32(scales), rq);
    const int32x4_t qhi = rl_neon_requantize4(hi, rl_neon_load_f32((const uint8_t *)scales + 16), rq);
    return vqmovn_s16(vcombine_s16(vqmovn_s32(qlo), vqmovn_s32(qhi)));
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
