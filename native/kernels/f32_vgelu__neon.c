/* f32_vgelu__neon.c — GELU, exact (erf) and tanh forms (f32_vexp.h), NEON, four values a step, each lane the
 * scalar kernel's operations. The exact form divides correctly rounded on armv7 too (a true division per
 * lane): erf + 1 cancels to 1e-7 near x = -5, where the refined reciprocal's ulp would be a tenth of the result.
 * The tanh form's armv7 division is the refined reciprocal, within an ulp or two, and armv7 without VFPv4
 * multiplies and adds unfused; a last n % 4 values through a block on the stack. */
#include "f32_vexp__neon.h"

/* a / b correctly rounded on both Arm paths (the file comment) */
static float32x4_t divide(float32x4_t a, float32x4_t b) {
#if defined(__aarch64__)
    return vdivq_f32(a, b);
#else
    float na[4], nb[4];
    vst1q_f32(na, a);
    vst1q_f32(nb, b);
    for (int l = 0; l < 4; ++l) na[l] /= nb[l];
    return vld1q_f32(na);
#endif
}

static float32x4_t gelu4(float32x4_t x) {
    const float32x4_t vmax = vdupq_n_f32(RL_VGELU_MAX), vmin = vdupq_n_f32(-RL_VGELU_MAX);
    /* compares and selects, not vminq/vmaxq (which would make a NaN x the bound): a NaN stays, as on x86 */
    float32x4_t v = vbslq_f32(vcgtq_f32(x, vmax), vmax, x);
    v = vbslq_f32(vcltq_f32(v, vmin), vmin, v);
    const float32x4_t v2 = vmulq_f32(v, v);
    float32x4_t p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_ALPHA9), v2, vdupq_n_f32(RL_VGELU_ALPHA11));
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_ALPHA7), v2, p);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_ALPHA5), v2, p);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_ALPHA3), v2, p);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_ALPHA1), v2, p);
    p = vmulq_f32(v, p);
    float32x4_t q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_BETA8), v2, vdupq_n_f32(RL_VGELU_BETA10));
    q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_BETA6), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_BETA4), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(RL_VGELU_BETA2), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(1.0f), v2, q);
    const float32x4_t erf = divide(p, q);
    return vmulq_f32(vmulq_f32(x, vdupq_n_f32(0.5f)), vaddq_f32(erf, vdupq_n_f32(1.0f)));
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
