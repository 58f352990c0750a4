/* f32_exp__neon.h — the pieces f32_vsigmoid__neon.c and f32_vtanh__neon.c share: a multiply-add (fused where
 * the FPU has FMA: aarch64 and armv7's VFPv4, which the NEON files are built for), a division (armv7 has no
 * vector divide: a reciprocal estimate refined by three Newton-Raphson steps, within an ulp or two), 2^n from
 * n rounded with XNNPACK's magic bias, and the load and store of a last n % 4 values through a block on the
 * stack (NEON has no masked loads; nothing past n is touched). */
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
