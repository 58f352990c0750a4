/* f32_vexp__neon.h — e^z of four values z <= 0 (or NaN), NEON: f32_vexp.h's rl_f32_expminus step (fused
 * multiply-adds on aarch64 and on armv7's VFPv4, f32_exp__neon.h), shared by the softmax and GELU kernels. */
#ifndef RILLET_F32_VEXP_NEON_H
#define RILLET_F32_VEXP_NEON_H

#include "f32_exp__neon.h"
#include "f32_vexp.h"

static inline float32x4_t rl_neon_expminus(float32x4_t z) {
    const float32x4_t magic_bias = vdupq_n_f32(RL_VEXP_MAGIC_BIAS);
    float32x4_t n = RL_NEON_MULADD(magic_bias, z, vdupq_n_f32(RL_VEXP_LOG2E));
    const float32x4_t s = rl_neon_exp2_of_biased(n);
    n = vsubq_f32(n, magic_bias);
    float32x4_t t = RL_NEON_MULADD(z, n, vdupq_n_f32(RL_VEXP_MINUS_LN2));
    float32x4_t p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C4), t, vdupq_n_f32(RL_VEXP_C5));
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C3), p, t);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C2), p, t);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C1), p, t);
    t = vmulq_f32(t, s);
    const float32x4_t e = RL_NEON_MULADD(s, t, p);
    const uint32x4_t underflow = vcltq_f32(z, vdupq_n_f32(RL_VEXP_CUTOFF));
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(e), underflow));
}

#endif
