/* f32_qd8_quantize__neon.c — the hybrid ops' input quantizations on aarch64 NEON, bit for bit the references':
 * XNNPACK's qd8 (f32_qd8_quantize_ref: clamp, then ties to even, which fcvtns does) and TFLite's
 * AsymmetricQuantizeFloats (f32_qs8_asymmetric_quantize_tflite_ref: roundf, ties away from zero, which fcvtas
 * does). The scale and zero point are the references' own code (f32_qs8_quantization.h) on the vector min and max;
 * only the loops differ, as in f32_qd8_quantize__avx2.c. A hybrid FULLY_CONNECTED quantizes each of its rows at
 * every invoke: on bert_tiny_dynamic (Cortex-A76) the scalar loops (a libm rounding call per value) were about a
 * third of the op's instructions.
 *
 * NaN: fminnm / fmaxnm return the number when one operand is NaN, so the range skips NaN as the scalar loop's
 * comparisons do, and the value clamps send NaN to the low bound, as the references' comparisons do. -0: fminnm
 * orders -0 below +0, so the range's low end can be -0 where the scalar loop keeps 0; both quantizations compute
 * the same scale and zero point from either (-0 times the scale is -0, and -128 + -0 is -128).
 *
 * aarch64 only (fcvtns, fcvtas, fminnm are ARMv8): armv7's NEON builds this file too and keeps the scalar loops. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#include "f32_qs8_quantization.h"
#include "kernels.h"

/* Widens [*lo, *hi] to hold the n values, 16 a step in two chains each; a last partial step reads its values
 * through a buffer padded with its first value, which changes no range. */
static inline void rminmax(int64_t n, const float *x, float *lo, float *hi) {
    float32x4_t vlo0 = vdupq_n_f32(*lo), vhi0 = vdupq_n_f32(*hi), vlo1 = vlo0, vhi1 = vhi0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const float32x4x4_t v = vld1q_f32_x4(x + i);
        vlo0 = vminnmq_f32(vlo0, v.val[0]), vhi0 = vmaxnmq_f32(vhi0, v.val[0]);
        vlo1 = vminnmq_f32(vlo1, v.val[1]), vhi1 = vmaxnmq_f32(vhi1, v.val[1]);
        vlo0 = vminnmq_f32(vlo0, v.val[2]), vhi0 = vmaxnmq_f32(vhi0, v.val[2]);
        vlo1 = vminnmq_f32(vlo1, v.val[3]), vhi1 = vmaxnmq_f32(vhi1, v.val[3]);
    }
    if (i < n) {
        float rest[16];
        const size_t count = (size_t)(n - i);
        memcpy(rest, x + i, count * sizeof(float));
        for (size_t k = count; k < 16; ++k) rest[k] = rest[0];
        const float32x4x4_t v = vld1q_f32_x4(rest);
        vlo0 = vminnmq_f32(vlo0, vminnmq_f32(v.val[0], v.val[2]));
        vhi0 = vmaxnmq_f32(vhi0, vmaxnmq_f32(v.val[0], v.val[2]));
        vlo1 = vminnmq_f32(vlo1, vminnmq_f32(v.val[1], v.val[3]));
        vhi1 = vmaxnmq_f32(vhi1, vmaxnmq_f32(v.val[1], v.val[3]));
    }
    *lo = vminnmvq_f32(vminnmq_f32(vlo0, vlo1));
    *hi = vmaxnmvq_f32(vmaxnmq_f32(vhi0, vhi1));
}

/* 16 int32 (each within [-256, 256]) plus the zero point, saturated to int8: the references' final clamp. */
static inline int8x16_t add_zero_point_narrow(int32x4_t a, int32x4_t b, int32x4_t c, int32x4_t d, int16x8_t vzp) {
    const int16x8_t lo = vaddq_s16(vqmovn_high_s32(vqmovn_s32(a), b), vzp);
    const int16x8_t hi = vaddq_s16(vqmovn_high_s32(vqmovn_s32(c), d), vzp);
    return vqmovn_high_s16(vqmovn_s16(lo), hi);
}

/* Both quantizations' values, 16 a step; a last partial step goes through buffers (its bytes copied out, never
 * past q + n). round: fcvtns (qd8, after clamping to [below, above]) or fcvtas (TFLite, after [-256, 256]). */
#define QUANTIZE_VALUES(n, x, q, vscale, vbelow, vabove, vzp, convert)                                        \
    do {                                                                                                      \
        int64_t i_ = 0;                                                                                       \
        for (;; i_ += 16) {                                                                                   \
            const int64_t left_ = (n) - i_;                                                                   \
            if (left_ <= 0) break;                                                                            \
            float rest_[16];                                                                                  \
            const float *src_ = (x) + i_;                                                                     \
            if (left_ < 16) {                                                                                 \
                memcpy(rest_, src_, (size_t)left_ * sizeof(float));                                           \
                memset(rest_ + left_, 0, (size_t)(16 - left_) * sizeof(float));                               \
                src_ = rest_;                                                                                 \
            }                                                                                                 \
            const float32x4x4_t v_ = vld1q_f32_x4(src_);                                                      \
            int32x4_t r_[4];                                                                                  \
            for (int k_ = 0; k_ < 4; ++k_)                                                                    \
                r_[k_] = convert(vminnmq_f32(vmaxnmq_f32(vmulq_f32(v_.val[k_], vscale), vbelow), vabove));    \
            const int8x16_t b_ = add_zero_point_narrow(r_[0], r_[1], r_[2], r_[3], vzp);                      \
            if (left_ >= 16) {                                                                                \
                vst1q_s8((q) + i_, b_);                                                                       \
            } else {                                                                                          \
                int8_t bytes_[16];                                                                            \
                vst1q_s8(bytes_, b_);                                                                         \
                memcpy((q) + i_, bytes_, (size_t)left_);                                                      \
            }                                                                                                 \
        }                                                                                                     \
    } while (0)

/* The reference's v > below ? v : below, then v < above ? v : above, then nearbyintf, plus the zero point. */
static inline void qd8_values(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    const int32_t zp = p->zero_point;
    const float32x4_t vscale = vdupq_n_f32(p->multiplier);
    const float32x4_t vbelow = vdupq_n_f32((float)(-128 - zp)), vabove = vdupq_n_f32((float)(127 - zp));
    const int16x8_t vzp = vdupq_n_s16((int16_t)zp);
    QUANTIZE_VALUES(n, x, q, vscale, vbelow, vabove, vzp, vcvtnq_s32_f32);
}

/* roundf(multiplier * x) within [-256, 256] (a NaN at -256), plus the zero point, within [-128, 127]. */
static inline void tflite_values(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    if (p->all_zero) {
        memset(q, 0, (size_t)n);
        return;
    }
    const float32x4_t vscale = vdupq_n_f32(p->multiplier);
    const float32x4_t vbelow = vdupq_n_f32(-256.0f), vabove = vdupq_n_f32(256.0f);
    const int16x8_t vzp = vdupq_n_s16((int16_t)p->zero_point);
    QUANTIZE_VALUES(n, x, q, vscale, vbelow, vabove, vzp, vcvtaq_s32_f32);
}

void f32_rminmax__neon(int64_t n, const float *x, float *lo, float *hi) { rminmax(n, x, lo, hi); }

void f32_qd8_quantize_values__neon(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values(n, x, q, p);
}

void f32_qs8_quantize_values_tflite__neon(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    tflite_values(n, x, q, p);
}

RL_F32_QS8_QUANTIZE_ONE_STEP(f32_qd8_quantize__neon, rminmax, rl_qd8_quantization_of, qd8_values)

RL_F32_QS8_QUANTIZE_ONE_STEP(f32_qs8_asymmetric_quantize_tflite__neon, rminmax, rl_tflite_quantization_of,
                             tflite_values)
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_f32_qd8_quantize__neon_not_on_armv7;
#endif
