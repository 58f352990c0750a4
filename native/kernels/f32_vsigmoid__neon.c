/* f32_vsigmoid__neon.c — logistic (vactivation.h), NEON (aarch64 and armv7), four values a step: the AVX2
 * kernel's algorithm (f32_vsigmoid__avx2.c, XNNPACK's rr1_p5): e^z for z = -|x| as 2^n * e^t, e^t - 1 ~ t p(t)
 * of degree 4; f = e^z / (e^z + 1), 0 below the cutoff, 1 - f for positive x. With armv7's reciprocal division
 * (f32_exp__neon.h) and without FMA the results move by an ulp or two, within the specification's tolerance. */
#include "f32_exp__neon.h"
#include "vactivation.h"

static float32x4_t sigmoid4(float32x4_t vx) {
    const float32x4_t magic_bias = vdupq_n_f32(0x1.8000FEp23f), one = vdupq_n_f32(1.0f);
    const float32x4_t z = vnegq_f32(vabsq_f32(vx));
    float32x4_t n = RL_NEON_MULADD(magic_bias, z, vdupq_n_f32(0x1.715476p0f));
    const float32x4_t s = rl_neon_exp2_of_biased(n);
    n = vsubq_f32(n, magic_bias);
    float32x4_t t = RL_NEON_MULADD(z, n, vdupq_n_f32(-0x1.62E430p-1f));
    float32x4_t p = RL_NEON_MULADD(vdupq_n_f32(0x1.573A1Ap-5f), t, vdupq_n_f32(0x1.0F9F9Cp-7f));
    p = RL_NEON_MULADD(vdupq_n_f32(0x1.555A80p-3f), p, t);
    p = RL_NEON_MULADD(vdupq_n_f32(0x1.FFFDC6p-2f), p, t);
    p = RL_NEON_MULADD(vdupq_n_f32(0x1.FFFFF6p-1f), p, t);
    t = vmulq_f32(t, s);
    const float32x4_t e = RL_NEON_MULADD(s, t, p);
    float32x4_t f = rl_neon_div(e, vaddq_f32(e, one));
    const uint32x4_t underflow = vcltq_f32(z, vdupq_n_f32(-0x1.5D589Ep+6f));
    f = vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(f), underflow));
    const uint32x4_t negative = vcltq_f32(vx, vdupq_n_f32(0.0f));
    return vbslq_f32(negative, f, vsubq_f32(one, f));
}

void f32_vsigmoid__neon(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, sigmoid4(vld1q_f32(x + i)));
    if (i < n) rl_neon_store_tail(y + i, sigmoid4(rl_neon_load_tail(x + i, n - i)), n - i);
}
