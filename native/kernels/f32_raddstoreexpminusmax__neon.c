/* f32_raddstoreexpminusmax__neon.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), NEON, with the scalar
 * kernel's e^z step for step (rl_f32_expminus: XNNPACK's rr2_p5, n = round(z / ln 2) through the magic bias,
 * t = z - n ln 2 in two steps, a degree-5 p(t), 2^n + (t 2^n) p): on aarch64 and armv7's VFPv4 every step is
 * the same fused multiply-add, so the scalar kernel's bits for each value. Not XNNPACK's aarch64 kernel
 * (rr1_lut64_p2, which LiteRT runs): its 2^(k/64) table costs four lane moves, four address computations and
 * four lane loads per vector, 120 instructions per 16 values by the disassembly (gcc 12), where the polynomial
 * with no table is 80; its results are within an ulp or two of these. Summed 16 values a step into two sums
 * (the first and third four into one, the second and fourth into the other, so two chains of adds overlap),
 * then 4 a step, the lanes added pairwise, then a last n % 4 values through a block on the stack (nothing past n
 * is touched) in order. */
#include "f32_vexp__neon.h"

/* 16 floats in one load on aarch64 (ld1 of four registers); armv7's gcc has no _x4 intrinsics. Stored as four
 * vectors, which gcc pairs (stp): its st1 of four registers wants them consecutive, and gcc 12 met that by
 * writing the four to the stack and loading them back (4 instructions more per 16 values). */
static inline float32x4x4_t load16(const float *p) {
#if defined(__aarch64__)
    return vld1q_f32_x4(p);
#else
    const float32x4x4_t v = {{vld1q_f32(p), vld1q_f32(p + 4), vld1q_f32(p + 8), vld1q_f32(p + 12)}};
    return v;
#endif
}

/* Always inlined, as run is: scaled is then a constant in each of run's two copies, not a branch per vector. */
static inline __attribute__((always_inline)) float32x4_t exp_of(float32x4_t x, float32x4_t vmax, float32x4_t vbeta,
                                                                 int scaled) {
    const float32x4_t magic_bias = vdupq_n_f32(RL_VEXP_MAGIC_BIAS);
    float32x4_t z = vsubq_f32(x, vmax);
    if (scaled) z = vmulq_f32(z, vbeta);
    float32x4_t n = RL_NEON_MULADD(magic_bias, z, vdupq_n_f32(RL_VEXP_LOG2E));
    const float32x4_t s = rl_neon_exp2_of_biased(n);
    n = vsubq_f32(n, magic_bias);
    /* The cutoff is read from z before t replaces it: the empty asm takes the comparison as an input and gives
     * z back as an output, so the comparison cannot be scheduled after t's multiply-add and gcc computes t in
     * z's register instead of copying z first (one instruction in 20 per vector). */
    const uint32x4_t underflow = vcltq_f32(z, vdupq_n_f32(RL_VEXP_CUTOFF));
    __asm__("" : "+w"(z) : "w"(underflow));
    float32x4_t t = RL_NEON_MULADD(z, n, vdupq_n_f32(RL_VEXP_MINUS_LN2_HI));
    t = RL_NEON_MULADD(t, n, vdupq_n_f32(RL_VEXP_MINUS_LN2_LO));
    float32x4_t p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C4), vdupq_n_f32(RL_VEXP_C5), t);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C3), p, t);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C2), p, t);
    p = RL_NEON_MULADD(vdupq_n_f32(RL_VEXP_C1), p, t);
    t = vmulq_f32(t, s);
    const float32x4_t e = RL_NEON_MULADD(s, t, p);
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(e), underflow));
}

static inline __attribute__((always_inline)) float run(size_t n, const float *x, float max, float beta, float *y,
                                                        int scaled) {
    const float32x4_t vmax = vdupq_n_f32(max), vbeta = vdupq_n_f32(beta);
    float32x4_t sum0 = vdupq_n_f32(0.0f), sum1 = sum0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const float32x4x4_t v = load16(x + i);
        const float32x4_t e0 = exp_of(v.val[0], vmax, vbeta, scaled);
        const float32x4_t e1 = exp_of(v.val[1], vmax, vbeta, scaled);
        const float32x4_t e2 = exp_of(v.val[2], vmax, vbeta, scaled);
        const float32x4_t e3 = exp_of(v.val[3], vmax, vbeta, scaled);
        vst1q_f32(y + i, e0);
        vst1q_f32(y + i + 4, e1);
        vst1q_f32(y + i + 8, e2);
        vst1q_f32(y + i + 12, e3);
        sum0 = vaddq_f32(sum0, e0);
        sum1 = vaddq_f32(sum1, e1);
        sum0 = vaddq_f32(sum0, e2);
        sum1 = vaddq_f32(sum1, e3);
    }
    float32x4_t sum = vaddq_f32(sum0, sum1);
    for (; i + 4 <= n; i += 4) {
        const float32x4_t e = exp_of(vld1q_f32(x + i), vmax, vbeta, scaled);
        vst1q_f32(y + i, e);
        sum = vaddq_f32(sum, e);
    }
    float lanes[4], tail[4];
    vst1q_f32(lanes, sum);
    float total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    const size_t left = n - i;
    if (left) {
        const float32x4_t e = exp_of(rl_neon_load_tail(x + i, left), vmax, vbeta, scaled);
        rl_neon_store_tail(y + i, e, left);
        vst1q_f32(tail, e);
        for (size_t l = 0; l < left; ++l) total += tail[l];
    }
    return total;
}

float f32_raddstoreexpminusmax__neon(size_t n, const float *x, float max, float beta, float *y) {
    return beta == 1.0f ? run(n, x, max, 1.0f, y, 0) : run(n, x, max, beta, y, 1);
}
