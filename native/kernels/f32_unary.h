/* f32_unary.h — float32 element-wise unary kernels: the AVX2 build, and the XNNPACK sigmoid that both builds
 * share (f32_unary_ref.c: libm's fmaf; f32_unary__avx2.c: the same code with -mfma, where fmaf is one
 * instruction), so every path gives the reference's bits. */
#ifndef RILLET_F32_UNARY_H
#define RILLET_F32_UNARY_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

/* LOGISTIC and TANH with hardware FMA (the reference's bits); SIN and COS vectorised, within a few ulp of the
 * reference's libm values (|x| <= 8192; libm's beyond); every other op through f32_unary_ref. kernel_table.c gives
 * it to every x86 SIMD path. */
void f32_unary__avx2(rl_unary_op op, int64_t count, const float *x, float *y);

/* HARD_SWISH as XNNPACK's NEON kernel (the reference's bits on aarch64); every other op through f32_unary_ref.
 * kernel_table.c gives it to the NEON paths. */
void f32_unary__neon(rl_unary_op op, int64_t count, const float *x, float *y);

/* RSQRT as XNNPACK's AVX-512 kernel (vrsqrt14ps and one Newton-Raphson step, within 2 ulp of the reference's)
 * and LOGISTIC as its AVX-512 sigmoid (a 32-entry table and vscalefps, within an ulp of the reference's, NaN from
 * |x| ~ 2^88 as XNNPACK's); every other op through f32_unary__avx2. kernel_table.c gives it to the AVX-512
 * paths. */
void f32_unary__avx512(rl_unary_op op, int64_t count, const float *x, float *y);

/* LOGISTIC as XNNPACK's AVX2 kernel computes it (f32_vsigmoid rr1_p5_div), which LiteRT's default Interpreter
 * delegates to: 1 / (1 + e^-x) differs from it by an ulp on half of all inputs. For z = -|x|, e^z = 2^n * e^t
 * with n = round(z / ln 2) (rounded by adding a magic bias whose low mantissa bits then hold n, and which also
 * carries the exponent's bias) and t = z - n ln 2 in [-ln2/2, ln2/2]; e^t - 1 ~ t * p(t), p of degree 4 in
 * Horner form; sigmoid(z) = e^z / (e^z + 1), 0 below the cutoff where e^z is subnormal, and 1 - sigmoid(z) for
 * positive x. Every multiply-add is fused as XNNPACK's are (fmaf: correctly rounded on any CPU), and a
 * subnormal step is flushed to zero, as XNNPACK runs with the CPU's flush-to-zero set (results below 2^-126 for
 * x below -87). XNNPACK's AVX-512 kernel (f32_unary__avx512.c) and Arm kernels use other approximations, so
 * there LiteRT's own results differ from these by an ulp. */
static inline float f32_flush_subnormal(float v) { return fabsf(v) < FLT_MIN ? copysignf(0.0f, v) : v; }

static inline float f32_sigmoid_as_xnnpack_avx2(float x) {
    const float magic_bias = 0x1.8000FEp23f;
    const float z = -fabsf(x);
    float n = fmaf(z, 0x1.715476p0f, magic_bias);
    uint32_t bits;
    memcpy(&bits, &n, sizeof bits);
    bits <<= 23;
    float s; /* 2^n */
    memcpy(&s, &bits, sizeof s);
    n -= magic_bias;
    float t = fmaf(n, -0x1.62E430p-1f, z);
    float p = fmaf(0x1.0F9F9Cp-7f, t, 0x1.573A1Ap-5f);
    p = fmaf(p, t, 0x1.555A80p-3f);
    p = fmaf(p, t, 0x1.FFFDC6p-2f);
    p = fmaf(p, t, 0x1.FFFFF6p-1f);
    t = f32_flush_subnormal(t * s);
    const float e = f32_flush_subnormal(fmaf(t, p, s)); /* e^z */
    float f = f32_flush_subnormal(e / (e + 1.0f));
    if (z < -0x1.5D589Ep+6f) f = 0.0f;
    return signbit(x) ? f : 1.0f - f;
}

/* TANH as XNNPACK computes it (f32_vtanh rational_9_8_div, its AVX-512, FMA3 and aarch64 NEON kernels alike),
 * which LiteRT's default Interpreter delegates float TANH to: libm's tanhf differs from it by an ulp on 40% of
 * inputs. x clamped to +-7.98 (where the rational function reaches +-1; the comparisons pass a NaN through, as
 * vminps/vmaxps do), tanh x ~ x P(x^2) / Q(x^2), P of degree 4 (its constant 1) and Q of degree 4 (its constant
 * 1), each step one fused multiply-add (fmaf: correctly rounded on any CPU), then one division. */
static inline float f32_tanh_as_xnnpack(float x) {
    const float max = 7.9807181358e+00f;
    const float v = x < -max ? -max : (x > max ? max : x);
    const float v2 = v * v;
    float p = fmaf(v2, 1.4248920266e-08f, 2.1235626264e-05f);
    p = fmaf(v2, p, 3.5330520477e-03f);
    p = fmaf(v2, p, 1.3412411511e-01f);
    p = fmaf(v2, p, 1.0f);
    p = v * p;
    float q = fmaf(v2, 8.1365948290e-07f, 3.3472978976e-04f);
    q = fmaf(v2, q, 2.6018999517e-02f);
    q = fmaf(v2, q, 4.6745735407e-01f);
    q = fmaf(v2, q, 1.0f);
    return p / q;
}

#endif
