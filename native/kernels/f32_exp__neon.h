/* f32_exp__neon.h — the pieces the NEON float element-wise kernels share: a multiply-add (fused where the FPU
 * has FMA: aarch64 and armv7's VFPv4, which the NEON files are built for), a division (armv7 has no vector
 * divide: a reciprocal estimate refined by three Newton-Raphson steps, within an ulp or two), 2^n from n
 * rounded with XNNPACK's magic bias, loads and stores of 8 values, and the load and store of a last n % 4
 * values through a block on the stack (NEON has no masked loads; nothing past n is touched). */
#ifndef RILLET_F32_EXP_NEON_H
#define RILLET_F32_EXP_NEON_H

#include <arm_neon.h>
#include <string.h>

#if defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
#define RL_NEON_MULADD(acc, a, b) vfmaq_f32(acc, a, b)
#else
#define RL_NEON_MULADD(acc, a, b) vmlaq_f32(acc, a, b)
#endif

static inline float32x4_t rl_neon_div(float32x4_t a, float32x4_t b) {
#if defined(__aarch64__)
    return vdivq_f32(a, b);
#else
    float32x4_t r = vrecpeq_f32(b);
    r = vmulq_f32(r, vrecpsq_f32(b, r));
    r = vmulq_f32(r, vrecpsq_f32(b, r));
    r = vmulq_f32(r, vrecpsq_f32(b, r));
    return vmulq_f32(a, r);
#endif
}

/* 2^n for n = the value v holds minus the magic bias 0x1.8000FEp23, its low mantissa bits (n + 127) moved into
 * the exponent. */
static inline float32x4_t rl_neon_exp2_of_biased(float32x4_t v) {
    return vreinterpretq_f32_s32(vshlq_n_s32(vreinterpretq_s32_f32(v), 23));
}

/* Eight floats in one load or store on aarch64: ld1/st1 of a register pair that steps its pointer (XNNPACK's
 * loops; four loads, two stores and an offset to step made an unclamped ADD 11 instructions per 8 values
 * instead of 8); armv7's gcc has no _x2 intrinsics: two loads there. */
static inline float32x4x2_t rl_neon_load8(const float *p) {
#if defined(__aarch64__)
    return vld1q_f32_x2(p);
#else
    const float32x4x2_t v = {{vld1q_f32(p), vld1q_f32(p + 4)}};
    return v;
#endif
}

static inline void rl_neon_store8(float *p, float32x4_t lo, float32x4_t hi) {
#if defined(__aarch64__)
    const float32x4x2_t v = {{lo, hi}};
    vst1q_f32_x2(p, v);
#else
    vst1q_f32(p, lo);
    vst1q_f32(p + 4, hi);
#endif
}

static inline float32x4_t rl_neon_load_tail(const float *x, size_t n) {
    float block[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    memcpy(block, x, n * sizeof(float));
    return vld1q_f32(block);
}

static inline void rl_neon_store_tail(float *y, float32x4_t v, size_t n) {
    float block[4];
    vst1q_f32(block, v);
    memcpy(y, block, n * sizeof(float));
}

#endif
