/* f32_kernels_test.c — checks one ISA's float32 GEMM, IGEMM, depthwise and pooling micro-kernels, its float32 to
 * int8 and int8 to float32 conversions (QUANTIZE, DEQUANTIZE), and the packers.
 *
 * Usage: f32_kernels_test scalar|avx2|avx512|neon|neondot. The scalar kernels are checked against plain loops here; an
 * ISA's kernels against the scalar kernels, on sizes around every tile edge. Inputs sit at the very end of
 * a page followed by a PROT_NONE page, so reading one float past a row (or a pointer past mr / taps)
 * faults; output rows are surrounded by canaries that must stay untouched. Exit status 0: all passed;
 * 1: a mismatch (the case is printed); 77: the CPU lacks the ISA (skipped, and said so).
 *
 * Pooling and conversion have no tolerance: every path gives the plain loops' bits (NaN for NaN).
 *
 * Float tolerance: SIMD kernels fuse multiply and add where the scalar kernel rounds twice, so they agree
 * to within a few ulps of the sum of |terms| (|bias| + sum |a * w|), not of a result that cancels. */
#include "kernel_tester.h" /* first: it sets _DEFAULT_SOURCE */

#include <float.h>
#include <math.h>

#include "f32_configs.h"
#include "f32_microkernels.h"

#define CANARY 12345.678f
#define REL_TOL 1e-6

static const rl_f32_minmax_params clamps[] = {{-INFINITY, INFINITY}, {-0.25f, 0.5f}, {0.0f, 6.0f}, {-0.05f, 0.05f}};
#define CLAMPS (sizeof(clamps) / sizeof(clamps[0]))

static float clampf(float v, const rl_f32_minmax_params *p) {
    v = v < p->min ? p->min : v;
    return v > p->max ? p->max : v;
}

/* Compares `rows` x `cols` results (row stride `stride`) with the expected values and checks every other
 * float of the `total`-float buffer (rows past the last, and a tail) still holds the canary. */
static int check_output(const char *what, const float *got, const float *want, const double *magnitude,
                        size_t rows, size_t cols, size_t stride, size_t total) {
    for (size_t idx = 0; idx < total; ++idx) {
        const size_t i = idx / stride, j = idx % stride;
        const float g = got[idx];
        if (i < rows && j < cols) {
            const float y = want[i * cols + j];
            const double m = magnitude[i * cols + j];
            if (!(fabs((double)g - (double)y) <= REL_TOL * (m > 1.0 ? m : 1.0))) {
                printf("FAIL %s: [%zu][%zu] got %.9g want %.9g (sum of |terms| %.3g)\n", what, i, j, g, y, m);
                return 1;
            }
        } else if (memcmp(&g, &(float){CANARY}, sizeof g) != 0) {
            printf("FAIL %s: wrote outside the output at [%zu][%zu] (%.9g)\n", what, i, j, g);
            return 1;
        }
    }
    return 0;
}

/* ---- GEMM and IGEMM: one case computes C[mr][nc] = A[mr][ks * kc] * W[nc][ks * kc]^T + bias ---- */
typedef struct {
    const rl_f32_gemm_config *cfg, *ref; /* ref: the scalar config, or NULL to use the plain loops */
    guarded *rows;                       /* ks * MR + 1 slots for A rows; the last holds a zero row */
    rng *r;
} gemm_bench;

static int gemm_case(gemm_bench *b, int indirect, size_t mr, size_t nc, size_t kc, size_t ks, size_t clamp) {
    const rl_f32_gemm_config *cfg = b->cfg;
    const rl_f32_minmax_params *params = &clamps[clamp];
    const size_t depth = ks * kc, a_stride = kc + 5, c_stride = nc + 3, MR = cfg->mr;
    float *w = malloc(nc * depth * sizeof(float)), *bias = malloc(nc * sizeof(float));
    rng_fill(b->r, w, nc * depth);
    rng_fill(b->r, bias, nc);
    const float **row = malloc(ks * MR * sizeof(float *)); /* row[p * mr + i]: row i's tap p */
    if (indirect) {
        const float *zero = slot_tail(b->rows, ks * MR, kc);
        memset((float *)zero, 0, kc * sizeof(float));
        for (size_t p = 0; p < ks; ++p)
            for (size_t i = 0; i < mr; ++i) {
                float *x = slot_tail(b->rows, p * MR + i, kc);
                rng_fill(b->r, x, kc);
                row[p * mr + i] = (p + i) % 5 == 3 ? zero : x; /* some padding taps */
            }
    } else { /* rows a_stride apart, the last ending at the guard page; gaps hold NaN */
        float *a = slot_tail(b->rows, 0, (mr - 1) * a_stride + kc);
        for (size_t i = 0; i < (mr - 1) * a_stride + kc; ++i) a[i] = NAN;
        for (size_t i = 0; i < mr; ++i) {
            rng_fill(b->r, a + i * a_stride, kc);
            row[i] = a + i * a_stride;
        }
    }

    /* The plain-loop result and each output's sum of |terms|. */
    float *want = malloc(mr * nc * sizeof(float));
    double *magnitude = malloc(mr * nc * sizeof(double));
    for (size_t i = 0; i < mr; ++i)
        for (size_t j = 0; j < nc; ++j) {
            float acc = bias[j];
            double m = fabs(bias[j]);
            for (size_t p = 0; p < ks; ++p)
                for (size_t k = 0; k < kc; ++k) {
                    const float prod = row[p * mr + i][k] * w[j * depth + p * kc + k];
                    acc += prod;
                    m += fabs(prod);
                }
            want[i * nc + j] = clampf(acc, params);
            magnitude[i * nc + j] = m;
        }
    if (b->ref != NULL) { /* the scalar kernel's result, in its own tiles, is the expected one */
        const rl_f32_gemm_config *ref = b->ref;
        float *packed = malloc(rl_f32_gemm_packed_size(nc, ks, kc, ref->nr));
        rl_pack_f32_gemm(nc, ks, kc, ref->nr, w, bias, packed);
        const float **ind = malloc(ks * ref->mr * sizeof(float *));
        for (size_t i0 = 0; i0 < mr; i0 += ref->mr) {
            const size_t m = mr - i0 < ref->mr ? mr - i0 : ref->mr;
            if (indirect) {
                for (size_t p = 0; p < ks; ++p)
                    for (size_t i = 0; i < ref->mr; ++i) ind[p * ref->mr + i] = row[p * mr + i0 + (i < m ? i : 0)];
                ref->igemm(m, nc, kc, ks, ind, packed, want + i0 * nc, nc, params);
            } else {
                ref->gemm(m, nc, kc, row[i0], a_stride, packed, want + i0 * nc, nc, params);
            }
        }
        free(ind);
        free(packed);
    }

    /* The kernel under test: packed panels, then C rows with canaries around and one row past mr. */
    const size_t packed_size = rl_f32_gemm_packed_size(nc, ks, kc, cfg->nr);
    float *packed = malloc(packed_size);
    rl_pack_f32_gemm(nc, ks, kc, cfg->nr, w, bias, packed);
    const size_t c_total = (mr + 1) * c_stride + 2 * cfg->nr;
    float *c = malloc(c_total * sizeof(float));
    for (size_t i = 0; i < c_total; ++i) c[i] = CANARY;
    snprintf(running, sizeof running, "%s mr=%zu nc=%zu kc=%zu ks=%zu clamp=[%g, %g]", indirect ? "igemm" : "gemm",
             mr, nc, kc, ks, params->min, params->max);
    if (indirect) {
        const float **ind = malloc(ks * MR * sizeof(float *));
        for (size_t p = 0; p < ks; ++p)
            for (size_t i = 0; i < MR; ++i) ind[p * MR + i] = i < mr ? row[p * mr + i] : poison(b->rows);
        cfg->igemm(mr, nc, kc, ks, ind, packed, c, c_stride, params);
        free(ind);
    } else {
        cfg->gemm(mr, nc, kc, row[0], a_stride, packed, c, c_stride, params);
    }
    const int failed = check_output(running, c, want, magnitude, mr, nc, c_stride, c_total);
    free(c);
    free(packed);
    free(want);
    free(magnitude);
    free(row);
    free(w);
    free(bias);
    return failed;
}

static int test_gemm(const rl_f32_gemm_config *cfg, const rl_f32_gemm_config *ref, rng *r) {
    static const size_t kcs[] = {1, 2, 3, 7, 8, 9, 16, 17, 33}, kss[] = {1, 2, 9};
    /* 8 and below in the last panel: gemm.h's narrow panel where nr is 16 or 32; 9-16: 16 wide where nr is 32. */
    const size_t ncs[] = {cfg->nr - 1, cfg->nr, cfg->nr + 1, 2 * cfg->nr + 1, 1, cfg->nr / 2, cfg->nr / 2 + 1,
                          cfg->nr + cfg->nr / 2, 8, 9, cfg->nr + 8, cfg->nr + 9};
    guarded rows = guarded_new(9 * cfg->mr + 1, 1);
    gemm_bench b = {cfg, ref, &rows, r};
    size_t cases = 0, clamp = 0;
    int failed = 0;
    for (size_t mr = 1; mr <= cfg->mr; ++mr)
        for (size_t n = 0; n < sizeof ncs / sizeof ncs[0]; ++n)
            for (size_t k = 0; k < sizeof kcs / sizeof kcs[0]; ++k) {
                if (ncs[n] == 0) continue;
                failed |= gemm_case(&b, 0, mr, ncs[n], kcs[k], 1, clamp++ % CLAMPS);
                for (size_t s = 0; s < sizeof kss / sizeof kss[0]; ++s)
                    failed |= gemm_case(&b, 1, mr, ncs[n], kcs[k], kss[s], clamp++ % CLAMPS);
                cases += 4;
            }
    if (cfg->gemm1) { /* the one-row kernel, with the tile's packed panels */
        rl_f32_gemm_config one = *cfg;
        one.mr = 1;
        one.gemm = cfg->gemm1;
        gemm_bench b1 = {&one, ref, &rows, r};
        for (size_t n = 0; n < sizeof ncs / sizeof ncs[0]; ++n)
            for (size_t k = 0; k < sizeof kcs / sizeof kcs[0]; ++k) {
                failed |= gemm_case(&b1, 0, 1, ncs[n], kcs[k], 1, clamp++ % CLAMPS);
                ++cases;
            }
    }
    guarded_free(&rows);
    printf("gemm/igemm %ux%u: %zu cases %s\n", cfg->mr, cfg->nr, cases, failed ? "FAILED" : "ok");
    return failed;
}

/* ---- depthwise ---- */
static int dwconv_case(const rl_f32_dwconv_config *cfg, const rl_f32_dwconv_config *ref, guarded *slots, rng *r,
                       size_t channels, size_t taps, size_t pixels, size_t clamp) {
    const rl_f32_minmax_params *params = &clamps[clamp];
    const size_t step = taps + 2, out_stride = channels + 2;
    float *w = malloc(taps * channels * sizeof(float)), *bias = malloc(channels * sizeof(float));
    rng_fill(r, w, taps * channels);
    rng_fill(r, bias, channels);
    const float *zero = slot_tail(slots, pixels * taps, channels);
    memset((float *)zero, 0, channels * sizeof(float));
    const float **ind = malloc(pixels * step * sizeof(float *));
    for (size_t p = 0; p < pixels; ++p)
        for (size_t t = 0; t < step; ++t) {
            if (t >= taps) {
                ind[p * step + t] = poison(slots); /* past taps: never read */
                continue;
            }
            float *x = slot_tail(slots, p * taps + t, channels);
            rng_fill(r, x, channels);
            ind[p * step + t] = (p + t) % 4 == 2 ? zero : x;
        }

    float *want = malloc(pixels * channels * sizeof(float));
    double *magnitude = malloc(pixels * channels * sizeof(double));
    for (size_t p = 0; p < pixels; ++p)
        for (size_t ch = 0; ch < channels; ++ch) {
            float acc = bias[ch];
            double m = fabs(bias[ch]);
            for (size_t t = 0; t < taps; ++t) {
                const float prod = ind[p * step + t][ch] * w[t * channels + ch];
                acc += prod;
                m += fabs(prod);
            }
            want[p * channels + ch] = clampf(acc, params);
            magnitude[p * channels + ch] = m;
        }
    if (ref != NULL) {
        float *packed = malloc(rl_f32_dwconv_packed_size(channels, taps, ref->channel_tile));
        rl_pack_f32_dwconv(channels, taps, 1, ref->channel_tile, w, bias, packed);
        ref->dwconv(channels, pixels, taps, ind, step, packed, want, channels, params);
        free(packed);
    }

    float *packed = malloc(rl_f32_dwconv_packed_size(channels, taps, cfg->channel_tile));
    rl_pack_f32_dwconv(channels, taps, 1, cfg->channel_tile, w, bias, packed);
    const size_t out_total = (pixels + 1) * out_stride + 2 * cfg->channel_tile;
    float *out = malloc(out_total * sizeof(float));
    for (size_t i = 0; i < out_total; ++i) out[i] = CANARY;
    snprintf(running, sizeof running, "dwconv channels=%zu taps=%zu pixels=%zu clamp=[%g, %g]", channels, taps,
             pixels, params->min, params->max);
    cfg->dwconv(channels, pixels, taps, ind, step, packed, out, out_stride, params);
    const int failed = check_output(running, out, want, magnitude, pixels, channels, out_stride, out_total);
    free(out);
    free(packed);
    free(want);
    free(magnitude);
    free(ind);
    free(w);
    free(bias);
    return failed;
}

static int test_dwconv(const rl_f32_dwconv_config *cfg, const rl_f32_dwconv_config *ref, rng *r) {
    const size_t ct = cfg->channel_tile;
    const size_t chs[] = {ct - 1, ct, ct + 1, 2 * ct + 3, 1, 3, 4 * ct + 5};
    static const size_t tapss[] = {1, 4, 9, 25};
    guarded slots = guarded_new(5 * 25 + 1, 1);
    size_t cases = 0, clamp = 0;
    int failed = 0;
    for (size_t c = 0; c < sizeof chs / sizeof chs[0]; ++c)
        for (size_t t = 0; t < sizeof tapss / sizeof tapss[0]; ++t)
            for (size_t pixels = 1; pixels <= 5; ++pixels) {
                if (chs[c] == 0) continue;
                failed |= dwconv_case(cfg, ref, &slots, r, chs[c], tapss[t], pixels, clamp++ % CLAMPS);
                ++cases;
            }
    guarded_free(&slots);
    printf("dwconv channel tile %zu: %zu cases %s\n", ct, cases, failed ? "FAILED" : "ok");
    return failed;
}

/* ---- pooling: one output pixel's max or average over its taps, bit for bit ---- */
/* The specification, as f32_maxpool__scalar / f32_avgpool__scalar: a NaN tap never wins the max; the average
 * adds the taps nine at a time, each nine as ((x0 + x1) + x8 + (x6 + x7)) + ((x2 + x3) + (x4 + x5)) with the
 * last group's missing taps 0, each group's sum to a total from 0.0f, and multiplies by `scale` (XNNPACK's
 * order); no tap gives the lowest float (max) or 0 (average). Written out here, not through pool.h's helper. */
static float pool_expected(int average, size_t taps, const float *const *input, float scale, size_t c,
                           const rl_f32_minmax_params *p) {
    if (!average) {
        float v = -FLT_MAX;
        for (size_t t = 0; t < taps; ++t) v = input[t][c] > v ? input[t][c] : v;
        return clampf(v, p);
    }
    float total = 0.0f;
    for (size_t t = 0; t < taps; t += 9) {
        float x[9];
        for (size_t k = 0; k < 9; ++k) x[k] = t + k < taps ? input[t + k][c] : 0.0f;
        const float left = ((x[0] + x[1]) + x[8]) + (x[6] + x[7]), right = (x[2] + x[3]) + (x[4] + x[5]);
        total = total + (right + left);
    }
    return clampf(total * scale, p);
}

static int same_float(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* mode 0: uniform in [-1, 1); 1: ties, signed zeros, infinities, NaN and the float extremes (sums that round,
 * so a different order would show); 2: one value everywhere (max ties on every tap) */
static float pool_value(rng *r, int mode) {
    static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 1e30f, -1e30f, 3.4e38f, -FLT_MAX, INFINITY,
                                    -INFINITY, NAN, 16777216.0f, 1.0f + FLT_EPSILON};
    if (mode == 2) return 0.375f;
    if (mode == 1 && rng_uniform(r) < 0.0f)
        return special[(size_t)((rng_uniform(r) + 1.0f) * 0.5f * (float)(sizeof special / sizeof *special)) %
                       (sizeof special / sizeof *special)];
    return rng_uniform(r);
}

static int test_pool(const rl_f32_pool_config *cfg, guarded *slots, rng *r) {
    static const size_t tapss[] = {0, 1, 2, 3, 4, 8, 9, 10, 17, 18, 19, 25, 49, 64};
    static const float scales[] = {1.0f, 0.5f, 1.0f / 3.0f, 1.0f / 49.0f, 0.0f};
    static const size_t chs[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 25, 31, 32, 33, 64, 65, 100};
    enum { GUARD = 8, MAX_CH = 100 };
    const float *input[64];
    float out[MAX_CH + 2 * GUARD];
    size_t cases = 0;
    int failed = 0;
    for (int average = 0; average < 2; ++average)
        for (size_t it = 0; it < sizeof tapss / sizeof *tapss; ++it)
            for (size_t ic = 0; ic < sizeof chs / sizeof *chs; ++ic)
                for (int mode = 0; mode < 3; ++mode) {
                    const size_t taps = tapss[it], channels = chs[ic];
                    const rl_f32_minmax_params *clamp = &clamps[cases % CLAMPS];
                    for (size_t t = 0; t < taps; ++t) { /* each tap ends where its page does */
                        float *x = slot_tail(slots, t, channels);
                        for (size_t c = 0; c < channels; ++c) x[c] = pool_value(r, mode);
                        input[t] = x;
                    }
                    for (size_t i = 0; i < MAX_CH + 2 * GUARD; ++i) out[i] = CANARY;
                    snprintf(running, sizeof running, "%s channels=%zu taps=%zu", average ? "avgpool" : "maxpool",
                             channels, taps);
                    const float scale = scales[cases % (sizeof scales / sizeof *scales)];
                    if (average)
                        cfg->avgpool(channels, taps, input, scale, out + GUARD, clamp->min, clamp->max);
                    else
                        cfg->maxpool(channels, taps, input, out + GUARD, clamp->min, clamp->max);
                    for (size_t i = 0; i < MAX_CH + 2 * GUARD && !failed; ++i) {
                        const int inside = i >= GUARD && i < GUARD + channels;
                        const float want =
                            inside ? pool_expected(average, taps, input, scale, i - GUARD, clamp) : CANARY;
                        if (!same_float(out[i], want)) {
                            printf("FAIL %s mode %d clamp [%g, %g]: %s %zu: got %.9g, want %.9g\n", running, mode,
                                   clamp->min, clamp->max, inside ? "channel" : "canary at", i - GUARD * inside,
                                   out[i], want);
                            failed = 1;
                        }
                    }
                    ++cases;
                }
    printf("max/avg pool: %zu cases %s\n", cases, failed ? "FAILED" : "ok (bit for bit)");
    return failed;
}

/* ---- float32 to int8 conversion (QUANTIZE), bit for bit ---- */
/* The specification, as f32_s8_quantize_ref: x * inverse_scale, clamped (NaN to the low end), rounded to
 * nearest with ties to even, plus the zero point. */
static int8_t quantize_expected(float x, float inverse_scale, int32_t zero_point) {
    const float lo = (float)(-128 - zero_point), hi = (float)(127 - zero_point);
    float v = x * inverse_scale;
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    return (int8_t)((int32_t)nearbyintf(v) + zero_point);
}

static int test_vcvt(rl_f32_qs8_vcvt_fn vcvt, guarded *slots, rng *r) {
    static const float inverse_scales[] = {1.0f, 2.0f, 20.0f, 1.0f / 0.0039215689f, 0.37f};
    static const int32_t zero_points[] = {0, -128, 127, -3, 64};
    static const float special[] = {0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.0f, -0.0f, INFINITY, -INFINITY, NAN,
                                    1e30f, -1e30f, 127.5f, -128.5f};
    enum { GUARD = 16, MAX_N = 200 };
    unsigned char out[MAX_N + 2 * GUARD];
    size_t cases = 0;
    int failed = 0;
    for (size_t n = 0; n <= MAX_N && !failed; n += n < 70 ? 1 : 43)
        for (size_t is = 0; is < sizeof inverse_scales / sizeof *inverse_scales && !failed; ++is) {
            const float inverse_scale = inverse_scales[is];
            const int32_t zero_point = zero_points[(n + is) % (sizeof zero_points / sizeof *zero_points)];
            float *x = slot_tail(slots, 0, n); /* the last float ends the page */
            for (size_t i = 0; i < n; ++i) {
                /* a third on exact ties (k + 0.5 before the scale, for inverse scale 1 and 2), a few specials */
                const float u = rng_uniform(r);
                if (u < -0.8f)
                    x[i] = special[(size_t)((u + 1.0f) * 70.0f) % (sizeof special / sizeof *special)];
                else if (u < -0.3f)
                    x[i] = ((float)(int)(rng_uniform(r) * 100.0f) + 0.5f) / inverse_scale;
                else
                    x[i] = rng_uniform(r) * 300.0f / inverse_scale;
            }
            memset(out, 0x5A, sizeof out);
            snprintf(running, sizeof running, "vcvt n=%zu inverse scale %g zero point %d", n, inverse_scale,
                     (int)zero_point);
            vcvt((int64_t)n, inverse_scale, zero_point, x, (int8_t *)(out + GUARD));
            for (size_t i = 0; i < MAX_N + 2 * GUARD && !failed; ++i) {
                const int inside = i >= GUARD && i < GUARD + n;
                const int want = inside ? quantize_expected(x[i - GUARD], inverse_scale, zero_point) : (int8_t)0x5A;
                if ((int8_t)out[i] != want) {
                    printf("FAIL %s: %s %zu: got %d, want %d (x = %.9g)\n", running, inside ? "element" : "guard byte",
                           i - GUARD * inside, (int8_t)out[i], want, inside ? (double)x[i - GUARD] : 0.0);
                    failed = 1;
                }
            }
            ++cases;
        }
    printf("f32 to int8 conversion: %zu cases %s\n", cases, failed ? "FAILED" : "ok (bit for bit)");
    return failed;
}

/* ---- int8 to float32 conversion (DEQUANTIZE), bit for bit ---- */
static int test_dequantize(rl_qs8_f32_vcvt_fn vcvt, guarded *slots, rng *r) {
    static const float scales[] = {1.0f, 0.05f, 0.0039215689f, 3.7e-5f, 1e30f};
    static const int32_t zero_points[] = {0, -128, 127, -3, 64};
    enum { GUARD = 8, MAX_N = 200 };
    float out[MAX_N + 2 * GUARD];
    size_t cases = 0;
    int failed = 0;
    for (size_t n = 0; n <= MAX_N && !failed; n += n < 70 ? 1 : 43)
        for (size_t is = 0; is < sizeof scales / sizeof *scales && !failed; ++is) {
            const float scale = scales[is];
            const int32_t zero_point = zero_points[(n + is) % (sizeof zero_points / sizeof *zero_points)];
            int8_t *x = (int8_t *)guarded_end(slots, 0, n); /* the last byte ends the page */
            for (size_t i = 0; i < n; ++i) x[i] = (int8_t)(int)(rng_uniform(r) * 128.0f);
            if (n > 1) x[0] = -128, x[n - 1] = 127;
            for (size_t i = 0; i < MAX_N + 2 * GUARD; ++i) out[i] = CANARY;
            snprintf(running, sizeof running, "dequantize n=%zu scale %g zero point %d", n, scale, (int)zero_point);
            vcvt(n, scale, zero_point, x, out + GUARD);
            for (size_t i = 0; i < MAX_N + 2 * GUARD && !failed; ++i) {
                const int inside = i >= GUARD && i < GUARD + n;
                const float want = inside ? (float)(x[i - GUARD] - zero_point) * scale : CANARY;
                if (!same_float(out[i], want)) {
                    printf("FAIL %s: %s %zu: got %.9g, want %.9g\n", running, inside ? "element" : "canary at",
                           i - GUARD * inside, out[i], want);
                    failed = 1;
                }
            }
            ++cases;
        }
    printf("int8 to f32 conversion: %zu cases %s\n", cases, failed ? "FAILED" : "ok (bit for bit)");
    return failed;
}

/* ---- packers: exact placement, zeros past n / channels, nothing written past the packed size ---- */
static int test_packers(rng *r) {
    int failed = 0;
    static const size_t ns[] = {1, 3, 4, 8, 9, 15, 16, 17, 24, 33, 40}, nrs[] = {4, 8, 16, 32};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; ++a)
        for (size_t b = 0; b < sizeof nrs / sizeof nrs[0]; ++b)
            for (int with_bias = 0; with_bias < 2; ++with_bias) {
                const size_t n = ns[a], nr = nrs[b], ks = 3, kc = 5, depth = ks * kc;
                const size_t panels = (n + nr - 1) / nr, size = rl_f32_gemm_packed_size(n, ks, kc, nr);
                /* gemm.h: every panel nr wide, except a last one of 1 to 8 columns where nr is 16 or 32: 8 wide, and
                 * of 9 to 16 where nr is 32: 16 wide. */
                const size_t last = n - (panels - 1) * nr;
                const size_t last_width = nr >= 16 && last <= 8 ? 8 : nr == 32 && last <= 16 && last < nr ? 16 : nr;
                if (size != ((panels - 1) * nr + last_width) * (1 + depth) * sizeof(float)) {
                    printf("FAIL gemm packed size n=%zu nr=%zu: %zu\n", n, nr, size);
                    return 1;
                }
                float *w = malloc(n * depth * sizeof(float)), *bias = malloc(n * sizeof(float));
                rng_fill(r, w, n * depth);
                rng_fill(r, bias, n);
                float *packed = malloc(size + 16 * sizeof(float));
                for (size_t i = 0; i < size / sizeof(float) + 16; ++i) packed[i] = CANARY;
                rl_pack_f32_gemm(n, ks, kc, nr, w, with_bias ? bias : NULL, packed);
                for (size_t q = 0; q < panels; ++q) {
                    const size_t width = q + 1 == panels ? last_width : nr;
                    if (rl_f32_gemm_panel_width(n, q * nr, nr) != width) {
                        printf("FAIL gemm panel width n=%zu nr=%zu panel %zu\n", n, nr, q);
                        failed = 1;
                    }
                    for (size_t k = 0; k <= depth; ++k)
                        for (size_t j = 0; j < width; ++j) {
                            const size_t col = q * nr + j;
                            const float want = col >= n                ? 0.0f
                                               : k == 0                ? (with_bias ? bias[col] : 0.0f)
                                                                       : w[col * depth + k - 1];
                            const float got = packed[q * nr * (1 + depth) + k * width + j];
                            if (memcmp(&got, &want, sizeof got) != 0) {
                                printf("FAIL pack gemm n=%zu nr=%zu bias=%d: panel %zu row %zu col %zu: %g, want %g\n",
                                       n, nr, with_bias, q, k, j, got, want);
                                failed = 1;
                            }
                        }
                }
                for (size_t i = size / sizeof(float); i < size / sizeof(float) + 16; ++i)
                    if (packed[i] != CANARY) {
                        printf("FAIL pack gemm n=%zu nr=%zu: wrote past the packed size\n", n, nr);
                        failed = 1;
                    }
                free(packed);

                /* The same n as depthwise channels, nr as the channel tile, ks * kc as taps. */
                const size_t taps = depth, dsize = rl_f32_dwconv_packed_size(n, taps, nr);
                if (dsize != panels * nr * (1 + taps) * sizeof(float)) {
                    printf("FAIL dwconv packed size channels=%zu ct=%zu: %zu\n", n, nr, dsize);
                    return 1;
                }
                packed = malloc(dsize + 16 * sizeof(float));
                for (size_t i = 0; i < dsize / sizeof(float) + 16; ++i) packed[i] = CANARY;
                rl_pack_f32_dwconv(n, taps, 1, nr, w, with_bias ? bias : NULL, packed);
                for (size_t q = 0; q < panels; ++q)
                    for (size_t t = 0; t <= taps; ++t)
                        for (size_t j = 0; j < nr; ++j) {
                            const size_t ch = q * nr + j;
                            const float want = ch >= n                 ? 0.0f
                                               : t == 0                ? (with_bias ? bias[ch] : 0.0f)
                                                                       : w[(t - 1) * n + ch];
                            const float got = packed[q * nr * (1 + taps) + t * nr + j];
                            if (memcmp(&got, &want, sizeof got) != 0) {
                                printf("FAIL pack dwconv channels=%zu ct=%zu bias=%d: tile %zu row %zu lane %zu\n",
                                       n, nr, with_bias, q, t, j);
                                failed = 1;
                            }
                        }
                for (size_t i = dsize / sizeof(float); i < dsize / sizeof(float) + 16; ++i)
                    if (packed[i] != CANARY) {
                        printf("FAIL pack dwconv channels=%zu ct=%zu: wrote past the packed size\n", n, nr);
                        failed = 1;
                    }
                free(packed);
                free(w);
                free(bias);
            }
    printf("packers: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

/* The config's packer of w [n][k] at every invoke writes rl_pack_f32_gemm's bytes for ks 1 and no bias, on
 * n and k around the panel width and the 8-wide blocks, and nothing past them. */
static int test_packw(const rl_f32_gemm_config *cfg, rng *r) {
    static const size_t ns[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 25, 33, 40, 41, 48, 49, 64, 65, 77}, ks[] = {1, 3, 7, 8, 9, 16, 17, 64, 65};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; ++a)
        for (size_t b = 0; b < sizeof ks / sizeof ks[0]; ++b) {
            const size_t n = ns[a], k = ks[b], size = rl_f32_gemm_packed_size(n, 1, k, cfg->nr) / sizeof(float);
            float *w = malloc(n * k * sizeof(float)), *want = malloc(size * sizeof(float));
            float *got = malloc((size + 16) * sizeof(float));
            rng_fill(r, w, n * k);
            rl_pack_f32_gemm(n, 1, k, cfg->nr, w, NULL, want);
            for (size_t i = 0; i < size + 16; ++i) got[i] = CANARY;
            snprintf(running, sizeof running, "packw_goi n=%zu k=%zu", n, k);
            cfg->packw_goi(n, k, cfg->nr, w, got);
            int bad = memcmp(got, want, size * sizeof(float)) != 0;
            for (size_t i = size; i < size + 16; ++i) bad |= got[i] != CANARY;
            free(w);
            free(want);
            free(got);
            if (bad) {
                printf("FAIL packw_goi n=%zu k=%zu nr=%u: not rl_pack_f32_gemm's bytes (or wrote past them)\n", n,
                       k, cfg->nr);
                return 1;
            }
        }
    printf("packw_goi: ok\n");
    return 0;
}

/* ---- the same bits whatever the split: a driver may cut rows, panels and pixels anywhere ---- */
static int test_splits(const rl_f32_gemm_config *cfg, const rl_f32_dwconv_config *dw, rng *r) {
    const size_t MR = cfg->mr, nr = cfg->nr, n = 2 * nr + 1, kc = 17, ks = 3;
    const rl_f32_minmax_params *params = &clamps[1];
    float *w = malloc(n * ks * kc * sizeof(float)), *bias = malloc(n * sizeof(float));
    float *a = malloc(MR * ks * kc * sizeof(float)), *whole = malloc(MR * n * sizeof(float));
    float *split = malloc(MR * n * sizeof(float)), *packed = malloc(rl_f32_gemm_packed_size(n, ks, kc, nr));
    const float **ind = malloc(ks * MR * sizeof(float *)), **row_ind = malloc(ks * MR * sizeof(float *));
    rng_fill(r, w, n * ks * kc);
    rng_fill(r, bias, n);
    rng_fill(r, a, MR * ks * kc);
    rl_pack_f32_gemm(n, ks, kc, nr, w, bias, packed);
    int failed = 0;
    for (int indirect = 0; indirect < 2; ++indirect) {
        const size_t depth = indirect ? kc : ks * kc; /* GEMM: one tap of ks * kc channels */
        for (size_t p = 0; p < ks; ++p)
            for (size_t i = 0; i < MR; ++i) ind[p * MR + i] = a + (i * ks + p) * kc;
        if (indirect)
            cfg->igemm(MR, n, kc, ks, ind, packed, whole, n, params);
        else
            cfg->gemm(MR, n, ks * kc, a, ks * kc, packed, whole, n, params);
        /* Row by row, each row's columns in two calls: the first panel, then the rest. */
        const size_t panel = nr * (1 + ks * kc);
        for (size_t i = 0; i < MR; ++i) {
            for (size_t p = 0; p < ks; ++p)
                for (size_t j = 0; j < MR; ++j) row_ind[p * MR + j] = ind[p * MR + i];
            for (size_t part = 0; part < 2; ++part) {
                const size_t n0 = part ? nr : 0, cols = part ? n - nr : nr;
                if (indirect)
                    cfg->igemm(1, cols, kc, ks, row_ind, packed + part * panel, split + i * n + n0, n, params);
                else
                    cfg->gemm(1, cols, depth, a + i * depth, depth, packed + part * panel, split + i * n + n0, n,
                              params);
            }
        }
        if (memcmp(whole, split, MR * n * sizeof(float)) != 0) {
            printf("FAIL %s %ux%u: one call and calls split by rows and panels differ\n", indirect ? "igemm" : "gemm",
                   cfg->mr, cfg->nr);
            failed = 1;
        }
        if (!indirect && cfg->gemm1) { /* a block of one row gets the tile's bits */
            memset(split, 0, MR * n * sizeof(float));
            for (size_t i = 0; i < MR; ++i)
                cfg->gemm1(1, n, depth, a + i * depth, depth, packed, split + i * n, n, params);
            if (memcmp(whole, split, MR * n * sizeof(float)) != 0) {
                printf("FAIL gemm1 beside %ux%u: a row alone differs from the same row in the tile\n", cfg->mr,
                       cfg->nr);
                failed = 1;
            }
        }
    }

    /* Depthwise: five pixels in one call (the multi-pixel path) and one at a time. */
    const size_t channels = 3 * dw->channel_tile + 5, taps = 9, pixels = 5;
    float *dw_in = malloc(pixels * taps * channels * sizeof(float));
    float *dw_packed = malloc(rl_f32_dwconv_packed_size(channels, taps, dw->channel_tile));
    float *dw_whole = malloc(pixels * channels * sizeof(float)), *dw_split = malloc(pixels * channels * sizeof(float));
    const float **dw_ind = malloc(pixels * taps * sizeof(float *));
    float *dw_w = malloc(taps * channels * sizeof(float)), *dw_bias = malloc(channels * sizeof(float));
    rng_fill(r, dw_in, pixels * taps * channels);
    rng_fill(r, dw_w, taps * channels);
    rng_fill(r, dw_bias, channels);
    for (size_t i = 0; i < pixels * taps; ++i) dw_ind[i] = dw_in + i * channels;
    rl_pack_f32_dwconv(channels, taps, 1, dw->channel_tile, dw_w, dw_bias, dw_packed);
    dw->dwconv(channels, pixels, taps, dw_ind, taps, dw_packed, dw_whole, channels, params);
    for (size_t p = 0; p < pixels; ++p)
        dw->dwconv(channels, 1, taps, dw_ind + p * taps, taps, dw_packed, dw_split + p * channels, channels, params);
    if (memcmp(dw_whole, dw_split, pixels * channels * sizeof(float)) != 0) {
        printf("FAIL dwconv: one call for %zu pixels and one call per pixel differ\n", pixels);
        failed = 1;
    }
    free(dw_in), free(dw_packed), free(dw_whole), free(dw_split), free(dw_ind), free(dw_w), free(dw_bias);
    free(w), free(bias), free(a), free(whole), free(split), free(packed), free(ind), free(row_ind);
    printf("splits: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

/* ---- configs: fallbacks and consistent tiles ---- */
static int test_configs(void) {
    int failed = 0;
    const rl_isa all[] = {RL_ISA_SCALAR, RL_ISA_AVX2, RL_ISA_AVX512, RL_ISA_AVX512VNNI, RL_ISA_NEON, RL_ISA_NEONDOT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
        const rl_f32_gemm_config g = rl_f32_gemm_config_for(all[i]);
        const rl_f32_dwconv_config d = rl_f32_dwconv_config_for(all[i]);
        const rl_f32_pool_config p = rl_f32_pool_config_for(all[i]);
        if (g.mr == 0 || g.nr == 0 || !g.gemm || !g.igemm || !g.packw_goi || d.channel_tile == 0 || !d.dwconv || !p.maxpool ||
            !p.avgpool || !rl_f32_qs8_vcvt_for(all[i]) || !rl_qs8_f32_vcvt_for(all[i])) {
            printf("FAIL config for isa %d is incomplete\n", (int)all[i]);
            failed = 1;
        }
    }
    const rl_f32_gemm_config vnni = rl_f32_gemm_config_for(RL_ISA_AVX512VNNI);
    const rl_f32_gemm_config avx512 = rl_f32_gemm_config_for(RL_ISA_AVX512);
    const rl_f32_gemm_config neon = rl_f32_gemm_config_for(RL_ISA_NEON);
    const rl_f32_gemm_config scalar = rl_f32_gemm_config_for(RL_ISA_SCALAR);
    const rl_f32_gemm_config neondot = rl_f32_gemm_config_for(RL_ISA_NEONDOT);
    if (vnni.gemm != avx512.gemm || neondot.gemm != neon.gemm || (neon.gemm == scalar.gemm) != !RL_HAVE_NEON_KERNELS) {
        printf("FAIL config fallbacks: AVX512VNNI must use AVX512's kernels, NEONDOT NEON's, NEON its own where "
               "this build has NEON kernels (else scalar's)\n");
        failed = 1;
    }
    printf("configs: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

static int run(rl_isa isa, const char *name) {
    rng r = {0x9e3779b97f4a7c15u};
    const rl_f32_gemm_config gemm = rl_f32_gemm_config_for(isa), gemm_ref = rl_f32_gemm_config_for(RL_ISA_SCALAR);
    const rl_f32_dwconv_config dw = rl_f32_dwconv_config_for(isa), dw_ref = rl_f32_dwconv_config_for(RL_ISA_SCALAR);
    const int scalar = isa == RL_ISA_SCALAR;
    int failed = test_configs();
    failed |= test_packers(&r);
    failed |= test_packw(&gemm, &r);
    failed |= test_gemm(&gemm, scalar ? NULL : &gemm_ref, &r);
    failed |= test_dwconv(&dw, scalar ? NULL : &dw_ref, &r);
    const rl_f32_dwconv_config dw_small = rl_f32_dwconv_small_config_for(isa);
    if (dw_small.dwconv != dw.dwconv) failed |= test_dwconv(&dw_small, scalar ? NULL : &dw_ref, &r);
    failed |= test_splits(&gemm, &dw, &r);
    const rl_f32_gemm_config wide = rl_f32_gemm_wide_config_for(isa);
    if (wide.gemm != gemm.gemm) {
        failed |= test_packw(&wide, &r);
        failed |= test_gemm(&wide, scalar ? NULL : &gemm_ref, &r);
        failed |= test_splits(&wide, &dw, &r);
    }
    const rl_f32_pool_config pool = rl_f32_pool_config_for(isa);
    guarded pool_slots = guarded_new(64, 1);
    failed |= test_pool(&pool, &pool_slots, &r);
    failed |= test_vcvt(rl_f32_qs8_vcvt_for(isa), &pool_slots, &r);
    failed |= test_dequantize(rl_qs8_f32_vcvt_for(isa), &pool_slots, &r);
    guarded_free(&pool_slots);
    printf("%s: %s\n", name, failed ? "FAILED" : "all passed");
    return failed;
}

int main(int argc, char **argv) { return kernel_tester_main(argc, argv, (kernel_tester){run, NULL}); }
