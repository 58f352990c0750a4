/* f32_vexp.h — float32 micro-kernels of a transformer's element-wise ops, built on one e^x: SOFTMAX over the
 * last axis as XNNPACK runs it (LiteRT's default Interpreter delegates float SOFTMAX to it): a row's maximum
 * (rmax), then e^((x - max) * beta) stored and summed (raddstoreexpminusmax), then a multiply by 1 / sum (the
 * f32_vbinary family's vbinaryc); and GELU, exact (erf) and tanh-approximate (gelu, gelu_tanh).
 *
 * The scalar kernels are the specification, written with the SIMD kernels' arithmetic (fmaf: one rounding,
 * a single instruction where the CPU has FMA), so a SIMD path differs from them only in the order of a sum:
 * - e^z for z <= 0: z = n ln2 + t, n = round(z / ln 2) (a magic bias added leaves n, with the exponent's bias,
 *   in the low mantissa bits, which shift into place as 2^n), t = z - n ln2 in one step with ln 2 rounded to
 *   float (2e-9 off: at most 2.4e-7 of e^z at n = -126, where e^z is 1e-38; a second step with the rest of
 *   ln 2 cost a tenth of a softmax row's time), e^t = 1 + t p(t), p of degree 4 fitted here for the least
 *   relative error on [-ln2/2, ln2/2] (9e-8); 0 below -87.34, where e^z is below FLT_MIN. NaN stays NaN.
 * - GELU(x) = x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2. For x >= -3: erf(x / sqrt 2) ~ x P(x^2) / Q(x^2),
 *   P and Q of degree 5 (a rational function fitted here, 2e-9 from erf in exact arithmetic) on x clamped to
 *   4.9 (erf(4.9 / sqrt 2) is 1 - 1e-6), and 1 + erf taken as (Q + x P) / Q with one rounding for Q + x P,
 *   which keeps its error near 1e-7 of Q where the sum cancels. Below -3, where Phi < 1.4e-3 and that error
 *   would grow relative to it, Phi = erfc(|x| / sqrt 2) / 2 ~ t e^(-z^2 + r(t)) / 2, z = |x| / sqrt 2,
 *   t = 1 / (1 + z/2), r of degree 9 (Numerical Recipes' erfcc, 1.2e-7 relative for every z); below about -13
 *   it underflows and GELU is -0. The SIMD kernels take the second form only for a vector with a value below
 *   -3. (LiteRT 2.3's default Interpreter runs GELU on its builtin kernel, 0.5 x (1 + erf), the same bits as
 *   its BUILTIN resolver: -0 from about -5.3 down, where the true value is below 2e-7.)
 * - GELU tanh form, x/2 (1 + tanh(u)) = x sigmoid(2u) with u = sqrt(2/pi) (x + 0.044715 x^3): sigmoid of
 *   -|2u| from the e^z above, e / (1 + e), and 1 - that for x >= 0; no 1 + tanh cancels for negative x.
 * - The row sum of MEAN over the last axis (f32_rsum.h: XNNPACK's order), which a transformer's layer norms
 *   take twice per row; every path gives its bits.
 * Rows of softmax: the maximum is x > max ? x : max from x[0] (a NaN after the first value is skipped; one at
 * the front makes the row NaN, as the reference's); y may be x in every kernel. */
#ifndef RILLET_F32_VEXP_H
#define RILLET_F32_VEXP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "f32_rsum.h"
#include "isa.h"

typedef float (*rl_f32_rmax_fn)(size_t n, const float *x);
/* y[i] = e^((x[i] - max) * beta), returns their sum. */
typedef float (*rl_f32_raddstoreexpminusmax_fn)(size_t n, const float *x, float max, float beta, float *y);
typedef void (*rl_f32_vgelu_fn)(size_t n, const float *x, float *y);

typedef struct {
    rl_f32_rmax_fn rmax;
    rl_f32_raddstoreexpminusmax_fn raddstoreexpminusmax;
    rl_f32_vgelu_fn gelu, gelu_tanh;
    rl_f32_rsum_fn rsum; /* a row's sum in XNNPACK's order (f32_rsum.h): a layer norm's MEAN over the last axis */
} rl_f32_vexp_config;

/* AVX2's on the AVX2 path, AVX-512's softmax rows and GELU (with AVX2's row sum) on the AVX-512 paths, NEON's on
 * both Arm paths, else scalar (f32_vexp_configs.c). */
rl_f32_vexp_config rl_f32_vexp_config_for(rl_isa isa);

/* The constants every path shares. */
#define RL_VEXP_MAGIC_BIAS 0x1.8000FEp23f
#define RL_VEXP_LOG2E 0x1.715476p0f
#define RL_VEXP_MINUS_LN2 -0x1.62E430p-1f
#define RL_VEXP_C1 0x1.FFFFF6p-1f
#define RL_VEXP_C2 0x1.FFFDC6p-2f
#define RL_VEXP_C3 0x1.555A6Ap-3f
#define RL_VEXP_C4 0x1.573A56p-5f
#define RL_VEXP_C5 0x1.0FA822p-7f
#define RL_VEXP_CUTOFF -0x1.5D589Ep+6f
/* GELU's exact (erf) form as XNNPACK computes it (f32_vgelu rational_12_10_div, its AVX-512, FMA3 and aarch64
 * NEON kernels alike), which LiteRT's default Interpreter delegates GELU to: x clamped to +-RL_VGELU_MAX (where
 * the rational function reaches +-1), erf(x / sqrt 2) ~ x P(x^2) / Q(x^2) with P of degree 5 and Q of degree 5
 * (Q's constant 1), each step of each polynomial one fused multiply-add, then (x * 0.5) * (erf + 1). */
#define RL_VGELU_MAX 5.1638283730e+00f
#define RL_VGELU_ALPHA1 7.9788452387e-01f
#define RL_VGELU_ALPHA3 6.6972173750e-02f
#define RL_VGELU_ALPHA5 9.3065137044e-03f
#define RL_VGELU_ALPHA7 3.2973114867e-04f
#define RL_VGELU_ALPHA9 1.2609783880e-05f
#define RL_VGELU_ALPHA11 4.5835321316e-08f
#define RL_VGELU_BETA2 2.5060352683e-01f
#define RL_VGELU_BETA4 2.8431978077e-02f
#define RL_VGELU_BETA6 1.8622842617e-03f
#define RL_VGELU_BETA8 7.2267655923e-05f
#define RL_VGELU_BETA10 1.1988805682e-06f
#define RL_VGELU_TANH_2K 0x1.988454p+0f /* 2 sqrt(2/pi) */
#define RL_VGELU_TANH_C 0.044715f

/* e^z for z <= 0 (or NaN), the scalar form of every path's step. */
static inline float rl_f32_expminus(float z) {
    float n = fmaf(z, RL_VEXP_LOG2E, RL_VEXP_MAGIC_BIAS);
    uint32_t bits;
    memcpy(&bits, &n, sizeof bits);
    bits <<= 23;
    float s;
    memcpy(&s, &bits, sizeof s);
    n -= RL_VEXP_MAGIC_BIAS;
    float t = fmaf(n, RL_VEXP_MINUS_LN2, z);
    float p = fmaf(RL_VEXP_C5, t, RL_VEXP_C4);
    p = fmaf(p, t, RL_VEXP_C3);
    p = fmaf(p, t, RL_VEXP_C2);
    p = fmaf(p, t, RL_VEXP_C1);
    t *= s;
    const float e = fmaf(t, p, s);
    return z < RL_VEXP_CUTOFF ? 0.0f : e;
}

float f32_rmax__scalar(size_t n, const float *x);
float f32_raddstoreexpminusmax__scalar(size_t n, const float *x, float max, float beta, float *y);
void f32_vgelu__scalar(size_t n, const float *x, float *y);
void f32_vgelu_tanh__scalar(size_t n, const float *x, float *y);
#if defined(__x86_64__) || defined(_M_X64)
float f32_rmax__avx2(size_t n, const float *x);
float f32_raddstoreexpminusmax__avx2(size_t n, const float *x, float max, float beta, float *y);
void f32_vgelu__avx2(size_t n, const float *x, float *y);
void f32_vgelu_tanh__avx2(size_t n, const float *x, float *y);
float f32_rmax__avx512(size_t n, const float *x);
float f32_raddstoreexpminusmax__avx512(size_t n, const float *x, float max, float beta, float *y);
void f32_vgelu__avx512(size_t n, const float *x, float *y);
void f32_vgelu_tanh__avx512(size_t n, const float *x, float *y);
#endif
#if RL_HAVE_NEON_KERNELS
float f32_rmax__neon(size_t n, const float *x);
float f32_raddstoreexpminusmax__neon(size_t n, const float *x, float max, float beta, float *y);
void f32_vgelu__neon(size_t n, const float *x, float *y);
void f32_vgelu_tanh__neon(size_t n, const float *x, float *y);
#endif

#endif
