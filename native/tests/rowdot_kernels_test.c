/* rowdot_kernels_test.c — checks one ISA's row-dot micro-kernels (rowdot.h): float32, int8 and int8-to-int32;
 * and the LSTM's other micro-kernels, the vector logistic and tanh (vactivation.h).
 *
 * Usage: rowdot_kernels_test scalar|avx2|avx512|avx512vnni|neon|neondot. The scalar kernels are checked against
 * plain loops here (float32 in the same order, so to the bit; int8 against the formula summed in 64 bits and
 * wrapped); an ISA's kernels against the scalar ones (int8 bit for bit; float32 within REL_TOL of |bias| +
 * sum |x * w|, as SIMD sums k in lanes with fused multiply-adds) on every size around the tiles' edges: m 1..5
 * input rows, nc around the 4 weight rows of a step, kc around every path's k step (4, 8, 16, 32, 64). The
 * weights and the input end exactly where a page ends, followed by a PROT_NONE page, so reading one element
 * past a row faults; outputs sit between canaries that must stay untouched. int8-to-int32 sums: the scalar
 * kernel against the formula, the others against it, bit for bit. Logistic and tanh: the scalar kernels
 * within 1e-6 of the double-precision functions, the others within 1e-6 relative of the scalar ones (1e-30
 * absolute below 1e-24), on lengths 1 to 40 ending at a guarded page's end, in place too,
 * over values from -100 to 100, near 0 and at the cutoffs; the int16 logistic and tanh bit for bit on every
 * input; TFLite's fixed-point int32-to-int8 requantization (requantize_fixedpoint.h) bit for bit against
 * rl_mul_by_quantized_multiplier on every shift from -31 to 30, any int32 sums, lengths around 8. Exit status 0: all passed; 1: a
 * mismatch (the case is printed); 77: the CPU lacks the ISA (skipped, and said so). */
#include "kernel_tester.h" /* first: it sets _DEFAULT_SOURCE */

#include <math.h>

#include "quant.h"
#include "requantize_fixedpoint.h"
#include "rowdot.h"
#include "vactivation.h"

#define REL_TOL 1e-6
#define CANARY_F 12345.678f
#define CANARY_B 0x5A
enum { MAX_M = 5, MAX_NC = 40, MAX_KC = 260, X_PAD = 3, Y_PAD = 2 };

static const size_t ms[] = {1, 2, 3, 4, 5};
static const size_t ncs[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 40};
static const size_t kcs[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, 260};
static const rl_f32_minmax_params f32_clamps[] = {{-INFINITY, INFINITY}, {-0.25f, 0.5f}, {0.0f, 6.0f}};

/* The scalar kernel's definition, in its order: bias, then k ascending, each multiply and add rounded. */
static float f32_formula(const float *x, const float *w, const float *bias, size_t n, size_t kc,
                         const rl_f32_minmax_params *p) {
    float acc = bias ? bias[n] : 0.0f;
    for (size_t k = 0; k < kc; ++k) {
        const float product = x[k] * w[n * kc + k];
        acc += product;
    }
    acc = acc < p->min ? p->min : acc;
    return acc > p->max ? p->max : acc;
}

static int test_f32(rl_f32_rowdot_fn kernel, int scalar, rng *r) {
    guarded gw = guarded_new(1, MAX_NC * MAX_KC * sizeof(float)), gx = guarded_new(1, MAX_M * (MAX_KC + X_PAD) * sizeof(float));
    static float got[MAX_M * (MAX_NC + Y_PAD)], want[MAX_M * (MAX_NC + Y_PAD)];
    static float bias[MAX_NC];
    size_t cases = 0;
    for (size_t a = 0; a < COUNT(ms); ++a)
        for (size_t b = 0; b < COUNT(ncs); ++b)
            for (size_t c = 0; c < COUNT(kcs); ++c) {
                const size_t m = ms[a], nc = ncs[b], kc = kcs[c], x_stride = kc + X_PAD, y_stride = nc + Y_PAD;
                const rl_f32_minmax_params *p = &f32_clamps[cases % COUNT(f32_clamps)];
                const int with_bias = cases % 4 != 3;
                float *w = guarded_end(&gw, 0, nc * kc * sizeof(float));
                float *x = guarded_end(&gx, 0, ((m - 1) * x_stride + kc) * sizeof(float));
                for (size_t i = 0; i < nc * kc; ++i) w[i] = rng_uniform(r);
                for (size_t i = 0; i < (m - 1) * x_stride + kc; ++i) x[i] = rng_uniform(r);
                for (size_t n = 0; n < nc; ++n) bias[n] = rng_uniform(r);
                const float *bias_or_null = with_bias ? bias : NULL;
                for (size_t i = 0; i < m * y_stride; ++i) got[i] = CANARY_F;
                if (!scalar) f32_rowdot_1x4__scalar(m, nc, kc, x, x_stride, w, bias_or_null, want, y_stride, p);
                kernel(m, nc, kc, x, x_stride, w, bias_or_null, got, y_stride, p);
                for (size_t i = 0; i < m; ++i)
                    for (size_t j = 0; j < y_stride; ++j) {
                        const float g = got[i * y_stride + j];
                        if (j >= nc) {
                            if (memcmp(&g, &(float){CANARY_F}, sizeof g) != 0) {
                                printf("FAIL f32 m=%zu nc=%zu kc=%zu: wrote past nc at [%zu][%zu]\n", m, nc, kc, i, j);
                                return 1;
                            }
                            continue;
                        }
                        const float *xi = x + i * x_stride;
                        double magnitude = with_bias ? fabs((double)bias[j]) : 0.0;
                        for (size_t k = 0; k < kc; ++k) magnitude += fabs((double)xi[k] * (double)w[j * kc + k]);
                        const float expect = scalar ? f32_formula(xi, w, bias_or_null, j, kc, p) : want[i * y_stride + j];
                        const int ok = scalar ? memcmp(&g, &expect, sizeof g) == 0
                                              : fabs((double)g - (double)expect) <= REL_TOL * (magnitude > 1.0 ? magnitude : 1.0);
                        if (!ok) {
                            printf("FAIL f32 m=%zu nc=%zu kc=%zu bias=%d: [%zu][%zu] got %.9g want %.9g\n", m, nc, kc,
                                   with_bias, i, j, g, expect);
                            return 1;
                        }
                    }
                ++cases;
            }
    guarded_free(&gw);
    guarded_free(&gx);
    printf("f32 rowdot: %zu cases ok\n", cases);
    return 0;
}

/* Row times matrix: the scalar kernel against the formula (0, then k ascending: to the bit), the others against
 * it within REL_TOL of sum |x * w|, on nc around every path's column steps (8, 16, 32, 64) and kc around 1..; w's
 * rows w_stride apart (wider than nc, or exactly nc) with its last row ending where a page ends, y between
 * canaries. */
static const size_t vecmat_ncs[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 96, 127, 128, 129, 200};
static const size_t vecmat_kcs[] = {1, 2, 3, 7, 16, 33, 64, 129};

static int test_vecmat(rl_f32_vecmat_fn kernel, int scalar, rng *r) {
    enum { MAX_VNC = 200, MAX_VKC = 129, W_PAD = 5 };
    guarded gw = guarded_new(1, MAX_VKC * (MAX_VNC + W_PAD) * sizeof(float)), gx = guarded_new(1, MAX_VKC * sizeof(float));
    static float got[MAX_VNC + Y_PAD], want[MAX_VNC];
    size_t cases = 0;
    for (size_t a = 0; a < COUNT(vecmat_ncs); ++a)
        for (size_t b = 0; b < COUNT(vecmat_kcs); ++b)
            for (size_t padded = 0; padded < 2; ++padded) {
                const size_t nc = vecmat_ncs[a], kc = vecmat_kcs[b], w_stride = nc + (padded ? W_PAD : 0);
                const size_t w_floats = (kc - 1) * w_stride + nc;
                float *w = guarded_end(&gw, 0, w_floats * sizeof(float));
                float *x = guarded_end(&gx, 0, kc * sizeof(float));
                for (size_t i = 0; i < w_floats; ++i) w[i] = rng_uniform(r);
                for (size_t i = 0; i < kc; ++i) x[i] = rng_uniform(r);
                for (size_t i = 0; i < nc + Y_PAD; ++i) got[i] = CANARY_F;
                if (!scalar) f32_vecmat__scalar(kc, nc, x, w, w_stride, want);
                kernel(kc, nc, x, w, w_stride, got);
                for (size_t j = nc; j < nc + Y_PAD; ++j)
                    if (memcmp(&got[j], &(float){CANARY_F}, sizeof got[j]) != 0) {
                        printf("FAIL vecmat nc=%zu kc=%zu: wrote past nc at [%zu]\n", nc, kc, j);
                        return 1;
                    }
                for (size_t j = 0; j < nc; ++j) {
                    float expect = 0.0f;
                    double magnitude = 0.0;
                    for (size_t k = 0; k < kc; ++k) {
                        const float product = x[k] * w[k * w_stride + j];
                        expect += product;
                        magnitude += fabs((double)x[k] * (double)w[k * w_stride + j]);
                    }
                    if (!scalar) expect = want[j];
                    const int ok = scalar ? memcmp(&got[j], &expect, sizeof expect) == 0
                                          : fabs((double)got[j] - (double)expect) <= REL_TOL * (magnitude > 1.0 ? magnitude : 1.0);
                    if (!ok) {
                        printf("FAIL vecmat nc=%zu kc=%zu w_stride=%zu: [%zu] got %.9g want %.9g\n", nc, kc, w_stride, j,
                               got[j], expect);
                        return 1;
                    }
                }
                ++cases;
            }
    guarded_free(&gw);
    guarded_free(&gx);
    printf("f32 vecmat: %zu cases ok\n", cases);
    return 0;
}

static const rl_qs8_requantization_params qs8_params[] = {
    {-128.0f - 3.0f, 127.0f - 3.0f, 3, 0},    /* no activation, output zero point 3 */
    {0.0f - -20.0f, 127.0f - -20.0f, -20, 0}, /* RELU with zero point -20 */
    {-100.0f - 0.0f, 60.0f - 0.0f, 0, 0},     /* a narrow clamp */
};

/* The int8 formula: the model's bias plus sum (x - izp) * w, in 64 bits, wrapped to int32, then the fp32
 * requantization with libm's rounding. */
static int8_t qs8_formula(const int8_t *x, const int8_t *w, int32_t model_bias, int32_t izp, size_t n, size_t kc,
                          float scale, const rl_qs8_requantization_params *p) {
    int64_t acc = model_bias;
    for (size_t k = 0; k < kc; ++k) acc += ((int64_t)x[k] - izp) * (int64_t)w[n * kc + k];
    float v = (float)(int32_t)(uint32_t)(uint64_t)acc * scale;
    v = v < p->min_less_zero_point ? p->min_less_zero_point : (v > p->max_less_zero_point ? p->max_less_zero_point : v);
    return (int8_t)((int32_t)nearbyintf(v) + p->output_zero_point);
}

static int test_qs8(const rl_qs8_rowdot_config *config, int scalar, rng *r) {
    guarded gw = guarded_new(1, MAX_NC * MAX_KC), gx = guarded_new(1, MAX_M * (MAX_KC + X_PAD));
    static int8_t got[MAX_M * (MAX_NC + Y_PAD)], want[MAX_M * (MAX_NC + Y_PAD)];
    static int32_t model_bias[MAX_NC], bias[MAX_NC], scalar_bias[MAX_NC];
    static float scales[MAX_NC];
    size_t cases = 0;
    for (size_t a = 0; a < COUNT(ms); ++a)
        for (size_t b = 0; b < COUNT(ncs); ++b)
            for (size_t c = 0; c < COUNT(kcs); ++c) {
                const size_t m = ms[a], nc = ncs[b], kc = kcs[c], x_stride = kc + X_PAD, y_stride = nc + Y_PAD;
                const rl_qs8_requantization_params *p = &qs8_params[cases % COUNT(qs8_params)];
                /* Extremes too: -128 inputs and weights, and zero points at both ends. */
                const int32_t izp = (int32_t)(cases % 3 == 0 ? -128 : (cases % 3 == 1 ? 127 : (int)(rng_next(r) % 256) - 128));
                int8_t *w = guarded_end(&gw, 0, nc * kc);
                int8_t *x = guarded_end(&gx, 0, (m - 1) * x_stride + kc);
                for (size_t i = 0; i < nc * kc; ++i) w[i] = (int8_t)(cases % 7 == 0 ? -128 : (int)(rng_next(r) % 256) - 128);
                for (size_t i = 0; i < (m - 1) * x_stride + kc; ++i) x[i] = (int8_t)((int)(rng_next(r) % 256) - 128);
                for (size_t n = 0; n < nc; ++n) {
                    model_bias[n] = (int32_t)(rng_next(r) % 200001) - 100000;
                    scales[n] = 1e-4f + (float)(rng_next(r) % 1000) * 1e-5f;
                    uint32_t sum = 0;
                    for (size_t k = 0; k < kc; ++k) sum += (uint32_t)(int32_t)w[n * kc + k];
                    bias[n] = (int32_t)((uint32_t)model_bias[n] - (uint32_t)(izp + config->input_offset) * sum);
                    scalar_bias[n] = (int32_t)((uint32_t)model_bias[n] - (uint32_t)izp * sum);
                }
                memset(got, CANARY_B, sizeof got);
                if (!scalar)
                    qs8_qc8w_rowdot_1x4__scalar(m, nc, kc, x, x_stride, w, scalar_bias, scales, want, y_stride, p);
                config->rowdot(m, nc, kc, x, x_stride, w, bias, scales, got, y_stride, p);
                for (size_t i = 0; i < m; ++i)
                    for (size_t j = 0; j < y_stride; ++j) {
                        const int8_t g = got[i * y_stride + j];
                        if (j >= nc) {
                            if (g != (int8_t)CANARY_B) {
                                printf("FAIL qs8 m=%zu nc=%zu kc=%zu: wrote past nc at [%zu][%zu]\n", m, nc, kc, i, j);
                                return 1;
                            }
                            continue;
                        }
                        const int8_t expect = scalar ? qs8_formula(x + i * x_stride, w, model_bias[j], izp, j, kc,
                                                                   scales[j], p)
                                                     : want[i * y_stride + j];
                        if (g != expect) {
                            printf("FAIL qs8 m=%zu nc=%zu kc=%zu izp=%d: [%zu][%zu] got %d want %d\n", m, nc, kc,
                                   (int)izp, i, j, g, expect);
                            return 1;
                        }
                    }
                ++cases;
            }
    guarded_free(&gw);
    guarded_free(&gx);
    printf("qs8 rowdot: %zu cases ok\n", cases);
    return 0;
}

/* narrow: the kernel for weights in [-127, 127], given only those (and -128 inputs) */
static int test_s8_s32(rl_s8_s32_rowdot_fn kernel, int narrow, int scalar, rng *r) {
    guarded gw = guarded_new(1, MAX_NC * MAX_KC), gx = guarded_new(1, MAX_M * (MAX_KC + X_PAD));
    static int32_t got[MAX_M * (MAX_NC + Y_PAD)], want[MAX_M * (MAX_NC + Y_PAD)], bias[MAX_NC];
    const int32_t canary = 0x5A5A5A5A;
    size_t cases = 0;
    for (size_t a = 0; a < COUNT(ms); ++a)
        for (size_t b = 0; b < COUNT(ncs); ++b)
            for (size_t c = 0; c < COUNT(kcs); ++c) {
                const size_t m = ms[a], nc = ncs[b], kc = kcs[c], x_stride = kc + X_PAD, y_stride = nc + Y_PAD;
                const int with_bias = cases % 3 != 2, extremes = cases % 5 == 0;
                int8_t *w = guarded_end(&gw, 0, nc * kc);
                int8_t *x = guarded_end(&gx, 0, (m - 1) * x_stride + kc);
                /* -128 times -128 everywhere (-127 weights for the narrow kernel): the largest products, whose
                 * pair sums must not saturate */
                const int low = narrow ? -127 : -128;
                for (size_t i = 0; i < nc * kc; ++i)
                    w[i] = (int8_t)(extremes ? low : (int)(rng_next(r) % (unsigned)(128 - low)) + low);
                for (size_t i = 0; i < (m - 1) * x_stride + kc; ++i)
                    x[i] = (int8_t)(extremes ? -128 : (int)(rng_next(r) % 256) - 128);
                for (size_t n = 0; n < nc; ++n) bias[n] = (int32_t)rng_next(r); /* any int32: the sums wrap */
                const int32_t *bias_or_null = with_bias ? bias : NULL;
                for (size_t i = 0; i < m * y_stride; ++i) got[i] = canary;
                if (!scalar) s8_s32_rowdot_1x4__scalar(m, nc, kc, x, x_stride, w, bias_or_null, want, y_stride);
                kernel(m, nc, kc, x, x_stride, w, bias_or_null, got, y_stride);
                for (size_t i = 0; i < m; ++i)
                    for (size_t j = 0; j < y_stride; ++j) {
                        const int32_t g = got[i * y_stride + j];
                        if (j >= nc) {
                            if (g != canary) {
                                printf("FAIL s8_s32 m=%zu nc=%zu kc=%zu: wrote past nc at [%zu][%zu]\n", m, nc, kc,
                                       i, j);
                                return 1;
                            }
                            continue;
                        }
                        int64_t sum = with_bias ? bias[j] : 0;
                        for (size_t k = 0; k < kc; ++k) sum += (int64_t)x[i * x_stride + k] * w[j * kc + k];
                        const int32_t expect = scalar ? (int32_t)(uint32_t)(uint64_t)sum : want[i * y_stride + j];
                        if (g != expect) {
                            printf("FAIL s8_s32 m=%zu nc=%zu kc=%zu bias=%d: [%zu][%zu] got %d want %d\n", m, nc, kc,
                                   with_bias, i, j, (int)g, (int)expect);
                            return 1;
                        }
                    }
                ++cases;
            }
    guarded_free(&gw);
    guarded_free(&gx);
    printf("s8_s32 rowdot%s: %zu cases ok\n", narrow ? " (narrow weights)" : "", cases);
    return 0;
}

/* 1e-6 relative, or 1e-30 absolute for the tails of the logistic (armv7's NEON flushes subnormal steps to 0) */
static int close_enough(float got, double want) {
    const double tolerance = fabs(want) < 1e-24 ? 1e-30 : 1e-6 * fabs(want);
    return fabs((double)got - want) <= tolerance;
}

/* One activation kernel on every length 1..40, out of place and in place, against `reference` (the scalar
 * kernel) or, for the scalar kernel itself, the double-precision function. */
static int test_activation(const char *name, rl_f32_vunary_fn kernel, rl_f32_vunary_fn reference,
                           double (*exact)(double), rng *r) {
    enum { MAX_N = 40 };
    static const float specials[] = {0.0f, -0.0f, 1e-30f, -1e-20f, 1e-7f, -3e-4f, 0.01f, -0.3f, 0.35f, 1.0f, -2.5f,
                                     8.9f, -9.1f, 10.0f, -20.0f, 30.0f, -87.0f, 87.5f, -88.0f, 89.0f, -100.0f, 100.0f};
    guarded gx = guarded_new(1, MAX_N * sizeof(float)), gy = guarded_new(1, MAX_N * sizeof(float));
    size_t cases = 0;
    for (int round = 0; round < 50; ++round)
        for (size_t n = 1; n <= MAX_N; ++n) {
            float *x = guarded_end(&gx, 0, n * sizeof(float)), *y = guarded_end(&gy, 0, n * sizeof(float));
            static float want[MAX_N];
            for (size_t i = 0; i < n; ++i) {
                const float u = rng_uniform(r);
                x[i] = round == 0 ? specials[i % COUNT(specials)] : (round % 2 ? 8.0f * u : 100.0f * u * u * u);
            }
            if (reference) reference(n, x, want);
            kernel(n, x, y);
            for (size_t i = 0; i < n; ++i) {
                const double expect = reference ? (double)want[i] : exact((double)x[i]);
                if (!close_enough(y[i], expect)) {
                    printf("FAIL %s n=%zu: x[%zu] = %.9g gives %.9g, want %.9g\n", name, n, i, x[i], y[i], expect);
                    return 1;
                }
            }
            kernel(n, x, x); /* in place */
            if (memcmp(x, y, n * sizeof(float)) != 0) {
                printf("FAIL %s n=%zu: in place differs\n", name, n);
                return 1;
            }
            ++cases;
        }
    guarded_free(&gx);
    guarded_free(&gy);
    printf("%s: %zu cases ok\n", name, cases);
    return 0;
}

static double sigmoid_exact(double x) { return 1.0 / (1.0 + exp(-x)); }

/* gemmlowp's int16 logistic (integer_bits < 0 here) or tanh with integer_bits, every path against the scalar
 * kernel bit for bit on all 65536 inputs, then on lengths 1..40 ending at a guarded page's end and in place;
 * the scalar kernel within 2^-10 of the function in double precision. */
static int test_s16_activation(const rl_vactivation_config *act, int integer_bits, int scalar, rng *r) {
    enum { ALL = 65536, MAX_N = 40 };
    static int16_t x[ALL], got[ALL], want[ALL];
    const int sigmoid = integer_bits < 0;
    for (int i = 0; i < ALL; ++i) x[i] = (int16_t)(i - 32768);
    if (sigmoid) act->s16_sigmoid(ALL, x, got);
    else act->s16_tanh(ALL, integer_bits, x, got);
    if (sigmoid) s16_vsigmoid__scalar(ALL, x, want);
    else s16_vtanh__scalar(ALL, integer_bits, x, want);
    for (int i = 0; i < ALL; ++i) {
        const double v = sigmoid ? ldexp(x[i], -12) : ldexp(x[i], integer_bits - 15);
        const double exact = sigmoid ? 1.0 / (1.0 + exp(-v)) : tanh(v);
        const int ok = scalar ? fabs(ldexp(got[i], -15) - exact) <= 1.0 / 1024 : got[i] == want[i];
        if (!ok) {
            printf("FAIL s16 %s(%d) of %d: got %d, want %d (%.6f)\n", sigmoid ? "sigmoid" : "tanh", integer_bits,
                   (int)x[i], (int)got[i], (int)want[i], exact * 32768.0);
            return 1;
        }
    }
    guarded gx = guarded_new(1, MAX_N * sizeof(int16_t)), gy = guarded_new(1, MAX_N * sizeof(int16_t));
    for (size_t n = 1; n <= MAX_N; ++n) {
        int16_t *xs = guarded_end(&gx, 0, n * sizeof(int16_t)), *ys = guarded_end(&gy, 0, n * sizeof(int16_t));
        for (size_t i = 0; i < n; ++i) xs[i] = (int16_t)rng_next(r);
        if (sigmoid) act->s16_sigmoid(n, xs, ys);
        else act->s16_tanh(n, integer_bits, xs, ys);
        for (size_t i = 0; i < n; ++i)
            if (ys[i] != want[xs[i] + 32768]) {
                printf("FAIL s16 %s(%d) n=%zu: element %zu\n", sigmoid ? "sigmoid" : "tanh", integer_bits, n, i);
                return 1;
            }
        if (sigmoid) act->s16_sigmoid(n, xs, xs);
        else act->s16_tanh(n, integer_bits, xs, xs);
        if (memcmp(xs, ys, n * sizeof(int16_t)) != 0) {
            printf("FAIL s16 %s(%d) n=%zu: in place differs\n", sigmoid ? "sigmoid" : "tanh", integer_bits, n);
            return 1;
        }
    }
    guarded_free(&gx);
    guarded_free(&gy);
    return 0;
}

/* int32 sums to int8, TFLite's fixed point: against rl_mul_by_quantized_multiplier, then the zero point and clamp. */
static int test_requantize(rl_s32_s8_requantize_fn kernel, rng *r) {
    enum { MAX_N = 41 };
    int32_t acc[MAX_N];
    int8_t got[MAX_N + 1];
    size_t cases = 0;
    for (int32_t shift = -31; shift <= 30; ++shift)
        for (size_t n = 0; n < MAX_N; n += n < 18 ? 1 : 7) {
            const int32_t multiplier = (int32_t)((1u << 30) | (rng_next(r) >> 2)), zero_point = (int32_t)(rng_next(r) % 256) - 128;
            const int32_t lo = cases % 4 == 0 ? (int32_t)(rng_next(r) % 100) - 128 : -128, hi = cases % 4 == 0 ? 100 : 127;
            for (size_t i = 0; i < n; ++i) {
                const uint32_t bits = rng_next(r);
                /* any int32, small sums of either sign, multiples of a power of two, and the extremes */
                acc[i] = i % 5 == 0 ? (int32_t)bits : i % 5 == 1 ? (int32_t)(bits % 20001) - 10000
                       : i % 5 == 2 ? (int32_t)((bits % 64) << (bits >> 27)) - (int32_t)(bits & 1) * 4096
                       : i % 5 == 3 ? (i & 8 ? INT32_MIN : INT32_MAX) : -(int32_t)(bits % 1000);
            }
            got[n] = CANARY_B;
            kernel(n, acc, multiplier, shift, zero_point, lo, hi, got);
            if (got[n] != (int8_t)CANARY_B) {
                printf("FAIL requantize n=%zu shift=%d: wrote past n\n", n, (int)shift);
                return 1;
            }
            for (size_t i = 0; i < n; ++i) {
                const int32_t want = rl_clamp_i32(rl_mul_by_quantized_multiplier(acc[i], multiplier, shift) + zero_point, lo, hi);
                if (got[i] != want) {
                    printf("FAIL requantize n=%zu shift=%d multiplier=%d: acc[%zu]=%d got %d want %d\n", n, (int)shift,
                           (int)multiplier, i, (int)acc[i], (int)got[i], (int)want);
                    return 1;
                }
            }
            ++cases;
        }
    printf("fixed-point requantize: %zu cases ok\n", cases);
    return 0;
}

static int run(rl_isa isa, const char *name) {
    rng r = {0x9e3779b97f4a7c15u};
    const rl_f32_rowdot_config f32 = rl_f32_rowdot_config_for(isa);
    const rl_qs8_rowdot_config qs8 = rl_qs8_rowdot_config_for(isa);
    const int scalar = isa == RL_ISA_SCALAR;
    if (!scalar && (f32.rowdot == f32_rowdot_1x4__scalar || qs8.rowdot == qs8_qc8w_rowdot_1x4__scalar ||
                    (f32.vecmat == f32_vecmat__scalar && (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512)))) {
        printf("FAIL: %s runs the scalar kernels under its own name\n", name);
        return 1;
    }
    const rl_s8_s32_rowdot_config s8_s32 = rl_s8_s32_rowdot_config_for(isa);
    const rl_vactivation_config act = rl_vactivation_config_for(isa);
    if (!scalar && (s8_s32.rowdot == s8_s32_rowdot_1x4__scalar || act.f32_sigmoid == f32_vsigmoid__scalar ||
                    act.s16_sigmoid == s16_vsigmoid__scalar)) {
        printf("FAIL: %s runs the scalar LSTM kernels under its own name\n", name);
        return 1;
    }
    int failed = test_f32(f32.rowdot, scalar, &r);
    failed |= test_vecmat(f32.vecmat, scalar, &r);
    failed |= test_qs8(&qs8, scalar, &r);
    failed |= test_s8_s32(s8_s32.rowdot, 0, scalar, &r);
    failed |= test_s8_s32(s8_s32.rowdot_narrow_weights, 1, scalar, &r);
    failed |= test_activation("sigmoid", act.f32_sigmoid, scalar ? NULL : f32_vsigmoid__scalar, sigmoid_exact, &r);
    failed |= test_activation("tanh", act.f32_tanh, scalar ? NULL : f32_vtanh__scalar, tanh, &r);
    for (int bits = -1; bits <= 6; ++bits) failed |= test_s16_activation(&act, bits, scalar, &r);
    const rl_s32_s8_requantize_fn requantize = rl_s32_s8_requantize_fixedpoint_for(isa);
    if (!scalar && requantize == s32_s8_requantize_fixedpoint__scalar) {
        printf("FAIL: %s runs the scalar requantization under its own name\n", name);
        return 1;
    }
    failed |= test_requantize(requantize, &r);
    if (!failed) printf("s16 sigmoid and tanh (0 to 6 integer bits): all 65536 inputs ok\n");
    printf("%s (input_offset %d): %s\n", name, (int)qs8.input_offset, failed ? "FAILED" : "all passed");
    return failed;
}

int main(int argc, char **argv) { return kernel_tester_main(argc, argv, (kernel_tester){run, NULL}); }
