/* f32_vexp.h — float32 micro-kernels of a transformer's element-wise ops, built on one e^x: SOFTMAX over the
 * last axis as XNNPACK runs it (LiteRT's default Interpreter delegates float SOFTMAX to it): a row's maximum
 * (rmax), then e^((x - max) * beta) stored and summed (raddstoreexpminusmax), then a multiply by 1 / sum
 * (vscale, XNNPACK's vmulc: exact, the same bits on every path); and GELU, exact (erf) and tanh-approximate
 * (gelu, gelu_tanh). XNNPACK takes only beta = 1; another beta (LiteRT's builtin kernel) is (x - max) * beta
 * rounded, then the same e^z.
 *
 * The scalar kernels are the specification, written with the SIMD kernels' arithmetic (fmaf: one rounding,
 * a single instruction where the CPU has FMA), so a SIMD path differs from them only in the order of a sum:
 * - e^z for z <= 0 as XNNPACK's f32 raddstoreexpminusmax rr2_p5 kernels (its AVX-512, AVX2 and scalar ones, which
 *   LiteRT's default Interpreter runs float SOFTMAX on on x86): z = n ln2 + t, n = round(z / ln 2) (a magic bias added
 *   leaves n, with the exponent's bias, in the low mantissa bits, which shift into place as 2^n), t = z - n ln2
 *   in two steps (ln 2's high part, exact in the product, then its low part), e^t = 1 + t p(t) with XNNPACK's
 *   degree-5 p, as 2^n + (t 2^n) p; 0 below -87.34, where e^z is below FLT_MIN. NaN stays NaN. Each step is the
 *   same correctly rounded operation on every x86 path and in the scalar kernel (fmaf), so their e^z agree bit
 *   for bit and a row's sum differs only in the order its kernel adds (XNNPACK's, kernel by kernel). The NEON
 *   kernel runs the same steps (fused on aarch64 and armv7's VFPv4: the same e^z), not XNNPACK's aarch64 one
 *   (rr1_lut64_p2: 2^(k/64) from a table, which costs more instructions than the polynomial it shortens), so
 *   LiteRT on Arm is within an ulp or two (the testers allow 1e-6 relative between paths).
 * Rows of softmax on aarch64 take the maximum with fmaxnm: a zero maximum's sign may differ from the scalar
 * kernel's, which x - max does not see.
 * - GELU(x) = x Phi(x) (exact, erf) and its tanh form x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), each as
 *   XNNPACK computes it (f32_vgelu and f32_vapproxgelu rational_12_10_div, on AVX-512, FMA3 and aarch64 NEON
 *   alike, which LiteRT's default Interpreter delegates GELU to for either form): x clamped to where the
 *   rational function reaches +-1, erf-like(x) ~ x P(x^2) / Q(x^2), P and Q of degree 5 (Q's constant 1), each
 *   step one fused multiply-add, then (x * 0.5) * (p / q + 1) with the unclamped x.
 * - The row sum of MEAN over the last axis (f32_rsum.h: XNNPACK's order), which a transformer's layer norms
 *   take twice per row; every path gives the scalar kernel's bits but AVX-512's (XNNPACK's AVX-512 order).
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
/* y[i] = x[i] * s. */
typedef void (*rl_f32_vscale_fn)(size_t n, const float *x, float s, float *y);

typedef struct {
    rl_f32_rmax_fn rmax;
    rl_f32_raddstoreexpminusmax_fn raddstoreexpminusmax;
    rl_f32_vscale_fn vscale;
    rl_f32_vgelu_fn gelu, gelu_tanh;
    rl_f32_rsum_fn rsum; /* a row's sum in XNNPACK's order (f32_rsum.h): a layer norm's MEAN over the last axis */
    rl_f32_rsumsqdiff_fn rsumsqdiff; /* rsum's bits over the row's (x - c)^2: its variance's MEAN, fused */
} rl_f32_vexp_config;

/* AVX2's on the AVX2 path, AVX-512's on the AVX-512 paths, NEON's on both Arm paths, else scalar
 * (f32_vexp_configs.c). */
rl_f32_vexp_config rl_f32_vexp_config_for(rl_isa isa);

/* XNNPACK's rr2_p5 e^z (f32_raddstoreexpminusmax avx512f, avx2 and scalar kernels). */
#define RL_VEXP_MAGIC_BIAS 0x1.8000FEp23f
#define RL_VEXP_LOG2E 0x1.715476p0f
#define RL_VEXP_MINUS_LN2_HI -0x1.62E400p-1f
#define RL_VEXP_MINUS_LN2_LO -0x1.7F7D1Cp-20f
#define RL_VEXP_C1 0x1.FFFFF6p-1f
#define RL_VEXP_C2 0x1.FFFDC6p-2f
#define RL_VEXP_C3 0x1.555A80p-3f
#define RL_VEXP_C4 0x1.573A1Ap-5f
#define RL_VEXP_C5 0x1.0F9F9Cp-7f
#define RL_VEXP_CUTOFF -0x1.5D589Ep+6f
/* GELU as XNNPACK computes it (f32_vgelu and f32_vapproxgelu rational_12_10_div, their AVX-512, FMA3 and aarch64
 * NEON kernels alike): x clamped to +-max (where the rational function reaches +-1), r(x) = x P(x^2) / Q(x^2)
 * with P of degree 5 (alpha, from x^1 up) and Q of degree 5 (beta, from x^2 up; Q's constant 1), each step of
 * each polynomial one fused multiply-add, then (x * 0.5) * (r + 1) with the unclamped x. r is erf(x / sqrt 2)
 * for the exact form and tanh(sqrt(2/pi) (x + 0.044715 x^3)) for the tanh form: one shape, two fits. */
typedef struct {
    float max;
    float alpha[6]; /* alpha1, alpha3, .. alpha11 */
    float beta[5];  /* beta2, beta4, .. beta10 */
} rl_vgelu_rational;

static const rl_vgelu_rational rl_vgelu_erf = {
    5.1638283730e+00f,
    {7.9788452387e-01f, 6.6972173750e-02f, 9.3065137044e-03f, 3.2973114867e-04f, 1.2609783880e-05f,
     4.5835321316e-08f},
    {2.5060352683e-01f, 2.8431978077e-02f, 1.8622842617e-03f, 7.2267655923e-05f, 1.1988805682e-06f}};

static const rl_vgelu_rational rl_vgelu_tanh = {
    4.84974098e+00f,
    {7.9788458347e-01f, 6.0803253204e-02f, 7.2898347862e-03f, 2.6887017884e-04f, 1.4302649106e-05f,
     4.9544411240e-08f},
    {2.4369759858e-01f, 2.4381054565e-02f, 1.3060354395e-03f, 7.6477612311e-05f, 1.3433452750e-06f}};

/* e^z for z <= 0 (or NaN), the scalar form of every path's step. */
static inline float rl_f32_expminus(float z) {
    float n = fmaf(z, RL_VEXP_LOG2E, RL_VEXP_MAGIC_BIAS);
    uint32_t bits;
    memcpy(&bits, &n, sizeof bits);
    bits <<= 23;
    float s;
    memcpy(&s, &bits, sizeof s);
    n -= RL_VEXP_MAGIC_BIAS;
    float t = fmaf(n, RL_VEXP_MINUS_LN2_HI, z);
    t = fmaf(n, RL_VEXP_MINUS_LN2_LO, t);
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
void f32_vscale__scalar(size_t n, const float *x, float s, float *y);
void f32_vgelu__scalar(size_t n, const float *x, float *y);
void f32_vgelu_tanh__scalar(size_t n, const float *x, float *y);
#if defined(__x86_64__) || defined(_M_X64)
float f32_rmax__avx2(size_t n, const float *x);
float f32_raddstoreexpminusmax__avx2(size_t n, const float *x, float max, float beta, float *y);
void f32_vscale__avx2(size_t n, const float *x, float s, float *y);
void f32_vgelu__avx2(size_t n, const float *x, float *y);
void f32_vgelu_tanh__avx2(size_t n, const float *x, float *y);
float f32_rmax__avx512(size_t n, const float *x);
float f32_raddstoreexpminusmax__avx512(size_t n, const float *x, float max, float beta, float *y);
void f32_vscale__avx512(size_t n, const float *x, float s, float *y);
void f32_vgelu__avx512(size_t n, const float *x, float *y);
void f32_vgelu_tanh__avx512(size_t n, const float *x, float *y);
#endif
#if RL_HAVE_NEON_KERNELS
float f32_rmax__neon(size_t n, const float *x);
float f32_raddstoreexpminusmax__neon(size_t n, const float *x, float max, float beta, float *y);
void f32_vscale__neon(size_t n, const float *x, float s, float *y);
void f32_vgelu__neon(size_t n, const float *x, float *y);
void f32_vgelu_tanh__neon(size_t n, const float *x, float *y);
#endif

#endif
