/* f32_raddstoreexpminusmax__neon.c — y = e^((x - max) * beta) and its sum (f32_vexp.h), NEON, as XNNPACK's
 * neonfma_rr1_lut64_p2_u16_acc2 kernel computes them, which LiteRT's default Interpreter runs float SOFTMAX on
 * on Arm: z = n/64 ln2 + t with n = round(64 z / ln 2) (a magic bias of 1.5 * 2^17 leaves n in the low mantissa
 * bits: its low six bits pick 2^(k/64) from a table, the rest go into that value's exponent as 2^floor(n/64)),
 * t = z - n/64 ln2 in one step, e^t = 1 + t + t^2 c2, and e^z = s + s (t + t^2 c2); 0 below the cutoff. Each
 * multiply-add is fused where the FPU has FMA (aarch64, armv7's VFPv4). Summed in that kernel's order: 16 values
 * a step all into one sum (its second accumulator stays 0), then 4 a step, the four lanes added pairwise, then
 * a last n % 4 values, computed through a block on the stack (nothing past n is touched), as a pair and a single
 * value (aarch64: (f0 + f1) then f2; armv7 keeps two lanes to the end, as XNNPACK's 32-bit build does). */
#include "f32_vexp__neon.h"

/* 2^(k/64), k = 0..63, each rounded to the nearest float. */
static const float exp2_k_over_64[64] = {
    0x1.000000p+0f, 0x1.02C9A4p+0f, 0x1.059B0Ep+0f, 0x1.087452p+0f,
    0x1.0B5586p+0f, 0x1.0E3EC4p+0f, 0x1.11301Ep+0f, 0x1.1429AAp+0f,
    0x1.172B84p+0f, 0x1.1A35BEp+0f, 0x1.1D4874p+0f, 0x1.2063B8p+0f,
    0x1.2387A6p+0f, 0x1.26B456p+0f, 0x1.29E9E0p+0f, 0x1.2D285Ap+0f,
    0x1.306FE0p+0f, 0x1.33C08Cp+0f, 0x1.371A74p+0f, 0x1.3A7DB4p+0f,
    0x1.3DEA64p+0f, 0x1.4160A2p+0f, 0x1.44E086p+0f, 0x1.486A2Cp+0f,
    0x1.4BFDAEp+0f, 0x1.4F9B28p+0f, 0x1.5342B6p+0f, 0x1.56F474p+0f,
    0x1.5AB07Ep+0f, 0x1.5E76F2p+0f, 0x1.6247ECp+0f, 0x1.662388p+0f,
    0x1.6A09E6p+0f, 0x1.6DFB24p+0f, 0x1.71F75Ep+0f, 0x1.75FEB6p+0f,
    0x1.7A1148p+0f, 0x1.7E2F34p+0f, 0x1.82589Ap+0f, 0x1.868D9Ap+0f,
    0x1.8ACE54p+0f, 0x1.8F1AEAp+0f, 0x1.93737Cp+0f, 0x1.97D82Ap+0f,
    0x1.9C4918p+0f, 0x1.A0C668p+0f, 0x1.A5503Cp+0f, 0x1.A9E6B6p+0f,
    0x1.AE89FAp+0f, 0x1.B33A2Cp+0f, 0x1.B7F770p+0f, 0x1.BCC1EAp+0f,
    0x1.C199BEp+0f, 0x1.C67F12p+0f, 0x1.CB720Ep+0f, 0x1.D072D4p+0f,
    0x1.D5818Ep+0f, 0x1.DA9E60p+0f, 0x1.DFC974p+0f, 0x1.E502EEp+0f,
    0x1.EA4AFAp+0f, 0x1.EFA1BEp+0f, 0x1.F50766p+0f, 0x1.FA7C18p+0f,
};

/* Always inlined, as run is: scaled is then a constant in each of run's two copies, not a branch per vector. */
static inline __attribute__((always_inline)) float32x4_t exp_of(float32x4_t x, float32x4_t vmax, float32x4_t vbeta,
                                                                 int scaled) {
    const float32x4_t magic_bias = vdupq_n_f32(0x1.800000p17f);
    float32x4_t z = vsubq_f32(x, vmax);
    if (scaled) z = vmulq_f32(z, vbeta);
    float32x4_t n = RL_NEON_MULADD(magic_bias, z, vdupq_n_f32(RL_VEXP_LOG2E));
    const uint32x4_t bits = vreinterpretq_u32_f32(n);
    const uint32x4_t e = vshlq_n_u32(vbicq_u32(bits, vdupq_n_u32(0x3F)), 17);
    /* The four indices leave as two 64-bit lanes (two moves, not four) and the entries load straight into
     * vector lanes, not through a block on the stack. */
    const uint64x2_t k = vreinterpretq_u64_u32(vandq_u32(bits, vdupq_n_u32(0x3F)));
    const uint64_t k01 = vgetq_lane_u64(k, 0), k23 = vgetq_lane_u64(k, 1);
    float32x2_t l01 = vld1_dup_f32(&exp2_k_over_64[(uint32_t)k01]);
    float32x2_t l23 = vld1_dup_f32(&exp2_k_over_64[(uint32_t)k23]);
    l01 = vld1_lane_f32(&exp2_k_over_64[(uint32_t)(k01 >> 32)], l01, 1);
    l23 = vld1_lane_f32(&exp2_k_over_64[(uint32_t)(k23 >> 32)], l23, 1);
    const float32x4_t s = vreinterpretq_f32_u32(vaddq_u32(vreinterpretq_u32_f32(vcombine_f32(l01, l23)), e));
    n = vsubq_f32(n, magic_bias);
    const float32x4_t t = RL_NEON_MULADD(z, n, vdupq_n_f32(-0x1.62E430p-1f));
    float32x4_t p = vmulq_f32(t, vdupq_n_f32(0x1.FFFF0Ap-2f));
    p = RL_NEON_MULADD(t, t, p);
    const float32x4_t f = RL_NEON_MULADD(s, s, p);
    const uint32x4_t underflow = vcltq_f32(z, vdupq_n_f32(RL_VEXP_CUTOFF));
    return vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(f), underflow));
}

static inline __attribute__((always_inline)) float run(size_t n, const float *x, float max, float beta, float *y,
                                                        int scaled) {
    const float32x4_t vmax = vdupq_n_f32(max), vbeta = vdupq_n_f32(beta);
    float32x4_t sum = vdupq_n_f32(0.0f);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const float32x4_t e0 = exp_of(vld1q_f32(x + i), vmax, vbeta, scaled);
        const float32x4_t e1 = exp_of(vld1q_f32(x + i + 4), vmax, vbeta, scaled);
        const float32x4_t e2 = exp_of(vld1q_f32(x + i + 8), vmax, vbeta, scaled);
        const float32x4_t e3 = exp_of(vld1q_f32(x + i + 12), vmax, vbeta, scaled);
        vst1q_f32(y + i, e0);
        vst1q_f32(y + i + 4, e1);
        vst1q_f32(y + i + 8, e2);
        vst1q_f32(y + i + 12, e3);
        sum = vaddq_f32(sum, e0);
        sum = vaddq_f32(sum, e1);
        sum = vaddq_f32(sum, e2);
        sum = vaddq_f32(sum, e3);
    }
    for (; i + 4 <= n; i += 4) {
        const float32x4_t e = exp_of(vld1q_f32(x + i), vmax, vbeta, scaled);
        vst1q_f32(y + i, e);
        sum = vaddq_f32(sum, e);
    }
    float lanes[4], tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    vst1q_f32(lanes, sum);
    const size_t left = n - i;
    if (left) {
        const float32x4_t e = exp_of(rl_neon_load_tail(x + i, left), vmax, vbeta, scaled);
        rl_neon_store_tail(y + i, e, left);
        vst1q_f32(tail, e);
    }
#if defined(__aarch64__)
    float total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    if (left & 2) total += tail[0] + tail[1];
    if (left & 1) total += tail[left & 2];
    return total;
#else
    float pair0 = lanes[0] + lanes[2], pair1 = lanes[1] + lanes[3];
    if (left & 2) pair0 += tail[0], pair1 += tail[1];
    if (left & 1) pair1 += tail[left & 2];
    return pair0 + pair1;
#endif
}

float f32_raddstoreexpminusmax__neon(size_t n, const float *x, float max, float beta, float *y) {
    return beta == 1.0f ? run(n, x, max, 1.0f, y, 0) : run(n, x, max, beta, y, 1);
}
