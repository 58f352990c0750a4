/* f32_vgelu__neon.c — GELU, exact (erf) and tanh forms (f32_vexp.h), NEON, four values a step, each lane the
 * scalar kernel's operations (armv7 divides by a refined reciprocal, within an ulp or two, and multiplies
 * and adds unfused without VFPv4); a last n % 4 values
 * through a block on the stack. */
#include "f32_vexp__neon.h"

/* x < -3 (f32_vexp.h): x erfc(|x| / sqrt 2) / 2. */
static float32x4_t gelu_far4(float32x4_t x) {
    const float32x4_t one = vdupq_n_f32(1.0f);
    const float32x4_t z = vmulq_f32(vabsq_f32(x), vdupq_n_f32(RL_VGELU_SQRT1_2));
    const float32x4_t d = RL_NEON_MULADD(one, z, vdupq_n_f32(0.5f));
#if defined(__aarch64__)
    const float32x4_t t = vdivq_f32(one, d);
#else
    /* armv7's refined reciprocal is an ulp or two off, which r(t) and e^ carry to 1e-6 of the result: a true
     * divide per lane, on the rare vectors that come here */
    float lanes[4];
    vst1q_f32(lanes, d);
    for (int l = 0; l < 4; ++l) lanes[l] = 1.0f / lanes[l];
    const float32x4_t t = vld1q_f32(lanes);
#endif
    float32x4_t r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R8), t, vdupq_n_f32(RL_VGELU_R9));
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R7), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R6), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R5), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R4), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R3), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R2), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R1), t, r);
    r = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_R0), t, r);
    const float32x4_t e = rl_neon_expminus(RL_NEON_MULADD(r, vnegq_f32(z), z));
    return vmulq_f32(x, vmulq_f32(vmulq_f32(vdupq_n_f32(0.5f), t), e));
}

static float32x4_t gelu4(float32x4_t x) {
    const float32x4_t vmax = vdupq_n_f32(RL_VGELU_MAX);
    const float32x4_t v = vbslq_f32(vcgtq_f32(x, vmax), vmax, x); /* a NaN stays */
    const float32x4_t v2 = vmulq_f32(v, v);
    float32x4_t p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_P4), v2, vdupq_n_f32(RL_VGELU_P5));
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_P3), v2, p);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_P2), v2, p);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_P1), v2, p);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_P0), v2, p);
    float32x4_t q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_Q4), v2, vdupq_n_f32(RL_VGELU_Q5));
    q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_Q3), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_Q2), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_Q1), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(1.0f), v2, q);
    const float32x4_t y = vmulq_f32(vmulq_f32(vdupq_n_f32(0.5f), x), rl_neon_div(RL_NEON_MULADD(q, v, p), q));
    const uint32x4_t far = vcltq_f32(x, vdupq_n_f32(RL_VGELU_FAR));
#if defined(__aarch64__)
    const int any_far = vmaxvq_u32(far) != 0;
#else
    const uint32x2_t halves = vorr_u32(vget_low_u32(far), vget_high_u32(far));
    const int any_far = (vget_lane_u32(halves, 0) | vget_lane_u32(halves, 1)) != 0;
#endif
    return any_far ? vbslq_f32(far, gelu_far4(x), y) : y;
}

static float32x4_t gelu_tanh4(float32x4_t x) {
    const float32x4_t one = vdupq_n_f32(1.0f);
    const float32x4_t cubic = RL_NEON_MULADD(one, vmulq_f32(vdupq_n_f32(RL_VGELU_TANH_C), x), x);
    const float32x4_t u2 = vmulq_f32(vmulq_f32(vdupq_n_f32(RL_VGELU_TANH_2K), x), cubic);
    const float32x4_t e = rl_neon_expminus(vnegq_f32(vabsq_f32(u2)));
    const float32x4_t f = rl_neon_div(e, vaddq_f32(one, e));
    return vmulq_f32(x, vbslq_f32(vcltq_f32(u2, vdupq_n_f32(0.0f)), f, vsubq_f32(one, f)));
}

void f32_vgelu__neon(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, gelu4(vld1q_f32(x + i)));
    if (i < n) rl_neon_store_tail(y + i, gelu4(rl_neon_load_tail(x + i, n - i)), n - i);
}

void f32_vgelu_tanh__neon(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, gelu_tanh4(vld1q_f32(x + i)));
    if (i < n) rl_neon_store_tail(y + i, gelu_tanh4(rl_neon_load_tail(x + i, n - i)), n - i);
}
