/* f32_vtanh__neon.c — tanh (vactivation.h), NEON (aarch64 and armv7), four values a step: the AVX2 kernel's
 * algorithm (f32_vtanh__avx2.c): tanh |x| = -m / (2 + m), m = e^z - 1 for z = -2|x| clamped at -20, as
 * 2^n (e^t - 1) + (2^n - 1) with e^t - 1 = t + t^2 q(t), so it keeps its relative accuracy near 0; the sign of
 * x put back. With armv7's reciprocal division (f32_exp__neon.h) and without FMA the results move by an ulp or
 * two, within the specification's tolerance. */
#include "f32_exp__neon.h"
#include "vactivation.h"

static float32x4_t tanh4(float32x4_t vx) {
    const float32x4_t magic_bias = vdupq_n_f32(0x1.8000FEp23f), one = vdupq_n_f32(1.0f);
    const float32x4_t z = vmaxq_f32(vmulq_f32(vabsq_f32(vx), vdupq_n_f32(-2.0f)), vdupq_n_f32(-20.0f));
    float32x4_t n = RL_NEON_MULADD(magic_bias, z, vdupq_n_f32(0x1.715476p0f));
    const float32x4_t s = rl_neon_exp2_of_biased(n);
    n = vsubq_f32(n, magic_bias);
    float32x4_t t = RL_NEON_MULADD(z, n, vdupq_n_f32(-0x1.62E400p-1f));
    t = RL_NEON_MULADD(t, n, vdupq_n_f32(-0x1.7F7D1Cp-20f));
    float32x4_t q = RL_NEON_MULADD(vdupq_n_f32(1.0f / 720.0f), t, vdupq_n_f32(1.0f / 5040.0f));
    q = RL_NEON_MULADD(vdupq_n_f32(1.0f / 120.0f), q, t);
    q = RL_NEON_MULADD(vdupq_n_f32(1.0f / 24.0f), q, t);
    q = RL_NEON_MULADD(vdupq_n_f32(1.0f / 6.0f), q, t);
    q = RL_NEON_MULADD(vdupq_n_f32(0.5f), q, t);
    const float32x4_t et_minus_one = RL_NEON_MULADD(t, vmulq_f32(t, t), q);
    const float32x4_t m = RL_NEON_MULADD(vsubq_f32(s, one), s, et_minus_one);
    const float32x4_t magnitude = rl_neon_div(vnegq_f32(m), vaddq_f32(m, vdupq_n_f32(2.0f)));
    const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(vx), vdupq_n_u32(0x80000000u));
    return vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(magnitude), sign));
}

void f32_vtanh__neon(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, tanh4(vld1q_f32(x + i)));
    if (i < n) rl_neon_store_tail(y + i, tanh4(rl_neon_load_tail(x + i, n - i)), n - i);
}
