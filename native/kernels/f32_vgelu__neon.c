/* f32_vgelu__neon.c — GELU, exact (erf) and tanh forms (f32_vexp.h), NEON, each lane the scalar kernel's
 * operations (XNNPACK's neon rational_12_10_div kernels: on aarch64 the same bits) but one: the scalar kernel's
 * (x * 0.5) * (p / q + 1) is x * (p' / q + 0.5) with p' = p / 2, computed from the numerator's coefficients
 * halved. Halving is exact, so p' / q + 0.5 is exactly (p / q + 1) / 2 and the product the same real number,
 * rounded once: the same bits, one multiply fewer per vector, except where x / 2 or p' would be subnormal
 * (|x| below 2^-120: results below 1e-36, within the testers' 1e-30). Both forms divide correctly rounded on
 * armv7 too (a true division per lane): r + 1 cancels to 1e-7 near x = -5, where the refined reciprocal's ulp
 * would be a tenth of the result; armv7 without VFPv4 multiplies and adds unfused. Eight values a step
 * (XNNPACK's u8; on aarch64 one ld1 of two registers, the stores paired), then four, then a last n % 4 through
 * a block on the stack. */
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

static inline float32x4_t gelu4(float32x4_t x, const rl_vgelu_rational *c) {
    const float32x4_t vmax = vdupq_n_f32(c->max), vmin = vdupq_n_f32(-c->max);
    /* Arm's vminq/vmaxq return a NaN x as NaN (x86's minps would return the bound), and a NaN x makes y NaN
     * through the unclamped x whatever the clamp gives, so one instruction each, as XNNPACK's, not the
     * compare and select x86 needs. */
    const float32x4_t v = vmaxq_f32(vminq_f32(x, vmax), vmin);
    const float32x4_t v2 = vmulq_f32(v, v);
    /* the numerator's coefficients halved (constants: c is one of f32_vexp.h's two tables) */
    float32x4_t p = RL_NEON_MULADD(vdupq_n_f32(0.5f * c->alpha[4]), v2, vdupq_n_f32(0.5f * c->alpha[5]));
    for (int k = 3; k >= 0; --k) p = RL_NEON_MULADD(vdupq_n_f32(0.5f * c->alpha[k]), v2, p);
    p = vmulq_f32(v, p);
    float32x4_t q = RL_NEON_MULADD(vdupq_n_f32(c->beta[3]), v2, vdupq_n_f32(c->beta[4]));
    for (int k = 2; k >= 0; --k) q = RL_NEON_MULADD(vdupq_n_f32(c->beta[k]), v2, q);
    q = RL_NEON_MULADD(vdupq_n_f32(1.0f), v2, q);
    return vmulq_f32(x, vaddq_f32(divide(p, q), vdupq_n_f32(0.5f)));
}

static inline void run(size_t n, const float *x, float *y, const rl_vgelu_rational *c) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
#if defined(__aarch64__)
        const float32x4x2_t v = vld1q_f32_x2(x + i);
#else
        const float32x4x2_t v = {{vld1q_f32(x + i), vld1q_f32(x + i + 4)}};
#endif
        vst1q_f32(y + i, gelu4(v.val[0], c));
        vst1q_f32(y + i + 4, gelu4(v.val[1], c));
    }
    if (i + 4 <= n) {
        vst1q_f32(y + i, gelu4(vld1q_f32(x + i), c));
        i += 4;
    }
    if (i < n) rl_neon_store_tail(y + i, gelu4(rl_neon_load_tail(x + i, n - i), c), n - i);
}

void f32_vgelu__neon(size_t n, const float *x, float *y) { run(n, x, y, &rl_vgelu_erf); }

void f32_vgelu_tanh__neon(size_t n, const float *x, float *y) { run(n, x, y, &rl_vgelu_tanh); }
