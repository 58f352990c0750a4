/* qd8_kernels_test.c — checks one instruction-set path's hybrid (qd8_f32_qc8w) GEMM and IGEMM micro-kernels
 * bit for bit against the scalar kernels and against the plain formula of qd8_gemm.h on the unpacked weights
 * (which checks the packer too), on random cases around every tile edge (mr, nr, kr, KBLOCK +- 1, narrow
 * last panels, odd depths, several taps, per-row zero points, no bias, tight clamps). Every input row ends
 * where a PROT_NONE page begins, so an over-read faults; guard values after each output row must stay.
 *
 * The depthwise kernels (qd8_dwconv.h) likewise, on channel counts around their 16-channel step, 1 to 25
 * taps, with and without a bias.
 *
 * And the path's input quantizations (XNNPACK's and TFLite's) against the references, on lengths around 8, 16
 * and 64 (the AVX2 and AVX-512 loops' steps) and data that lands on ties (values on half steps), all-positive,
 * all-negative and constant rows.
 *
 *   qd8_kernels_test scalar|avx2|avx512vnni|neon|neondot   test that path (exit 0 pass, 1 mismatch, 77 CPU or
 *   build lacks it; neondot runs the dot-product GEMM/IGEMM and NEON's other hybrid kernels, as dispatch gives
 *   them)
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c99 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_features.h"
#include "kernels.h" /* the reference quantizations */
#include "qd8_dwconv.h"
#include "qd8_gemm.h"

typedef struct {
    uint64_t state;
} rng;

static uint32_t next_u32(rng *r) {
    r->state ^= r->state >> 12;
    r->state ^= r->state << 25;
    r->state ^= r->state >> 27;
    return (uint32_t)((r->state * UINT64_C(2685821657736338717)) >> 32);
}

static int32_t uniform(rng *r, int32_t lo, int32_t hi) { return lo + (int32_t)(next_u32(r) % (uint32_t)(hi - lo + 1)); }

static float uniform_f(rng *r, float lo, float hi) { return lo + (hi - lo) * (float)(next_u32(r) >> 8) / 16777216.0f; }

/* bytes that end where a PROT_NONE page begins; unmapped by the caller with guard_free */
static void *guard_alloc(size_t bytes, size_t *mapped) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (bytes + page - 1) / page;
    unsigned char *map = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + pages * page, page, PROT_NONE) != 0) {
        fprintf(stderr, "guard_alloc: out of memory\n");
        exit(2);
    }
    *mapped = (pages + 1) * page;
    return map + pages * page - bytes;
}

static void guard_free(void *p, size_t bytes, size_t mapped) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *end = (unsigned char *)p + bytes;
    munmap(end + page - mapped, mapped);
}

enum { MAX_MR = 8, GUARD = 4 };

static float formula(const int8_t *const *taps, size_t ks, size_t kc, const int8_t *w, size_t col,
                     const float *scales, const float *bias, rl_qd8_row_quantization q,
                     const rl_f32_minmax_params *params) {
    int64_t acc = 0;
    for (size_t p = 0; p < ks; ++p)
        for (size_t k = 0; k < kc; ++k) acc += (int64_t)(taps[p][k] - q.zero_point) * w[(col * ks + p) * kc + k];
    float y = fmaf((float)(int32_t)(uint32_t)acc * q.scale, scales[col], bias ? bias[col] : 0.0f);
    y = y < params->min ? params->min : y;
    return y > params->max ? params->max : y;
}

/* One case: returns 0 when path, scalar and formula agree bit for bit. Weights from wmin (-128, or -127 for a
 * pairs config: rl_qd8_gemm_pairs_config_for) to 127. */
static int gemm_case(rng *r, const rl_qd8_gemm_config *path, const rl_qd8_gemm_config *scalar, int igemm,
                     size_t mr, size_t nc, size_t kc, size_t ks, int32_t wmin) {
    const size_t n = nc;
    int8_t *w = malloc(n * ks * kc);
    float *scales = malloc(n * sizeof(float)), *bias = next_u32(r) % 4 ? malloc(n * sizeof(float)) : NULL;
    for (size_t i = 0; i < n * ks * kc; ++i) w[i] = (int8_t)uniform(r, wmin, 127);
    for (size_t j = 0; j < n; ++j) {
        scales[j] = uniform_f(r, 1e-4f, 2e-2f);
        if (bias) bias[j] = uniform_f(r, -2.0f, 2.0f);
    }
    rl_f32_minmax_params params = {-INFINITY, INFINITY};
    if (next_u32(r) % 3 == 0) params.min = uniform_f(r, -3.0f, 0.0f), params.max = uniform_f(r, 0.0f, 3.0f);
    rl_qd8_row_quantization rows[MAX_MR];
    /* rows of each tap: separate guarded blocks of kc bytes; ks * MAX_MR of them */
    int8_t *data[64 * MAX_MR];
    size_t mapped[64 * MAX_MR];
    for (size_t i = 0; i < mr; ++i)
        rows[i] = (rl_qd8_row_quantization){uniform(r, -128, 127), uniform_f(r, 1e-3f, 0.1f)};
    for (size_t t = 0; t < ks * mr; ++t) {
        data[t] = guard_alloc(kc, &mapped[t]);
        for (size_t k = 0; k < kc; ++k) data[t][k] = (int8_t)uniform(r, -128, 127);
    }
    int8_t *const replaced = data[ks * mr - 1];
    if (igemm && ks > 1) data[ks * mr - 1] = data[0]; /* a shared tap, as padding taps share the zero buffer */
    int failed = 0;
    float *outs[6];
    /* the third: the path's gemm_u8 (igemm_u8) on the same rows plus 128, the fourth its gemm_u8_1row (or gemm_1row
     * on the signed rows) a row at a time, the fifth and sixth its gemm_u8_4row and gemm_u8_5row on blocks of up to
     * 4 and 5 rows (GEMM only; the path's gemm where it has none) */
    const rl_qd8_gemm_config *cfgs[6] = {path, scalar, path, path, path, path};
    for (int which = 0; which < 6; ++which) {
        const rl_qd8_gemm_config *cfg = cfgs[which];
        const int one_row = which == 3 && !igemm && (cfg->gemm_u8_1row || cfg->gemm_1row);
        const int four_rows = which == 4 && !igemm && cfg->gemm_u8_4row;
        const int five_rows = which == 5 && !igemm && cfg->gemm_u8_5row;
        const int u8 = (which == 2 && (igemm ? cfg->igemm_u8 != NULL : cfg->gemm_u8 != NULL)) ||
                       (one_row && cfg->gemm_u8_1row) || four_rows || five_rows;
        const size_t step = one_row ? 1 : four_rows ? 4 : five_rows ? 5 : cfg->mr;
        const rl_qd8_gemm_fn gemm = one_row     ? (u8 ? cfg->gemm_u8_1row : cfg->gemm_1row)
                                    : four_rows ? cfg->gemm_u8_4row
                                    : five_rows ? cfg->gemm_u8_5row
                                    : u8        ? cfg->gemm_u8
                                                : cfg->gemm;
        const size_t c_stride = n + GUARD;
        float *c = malloc(mr * c_stride * sizeof(float));
        for (size_t i = 0; i < mr * c_stride; ++i) c[i] = -12345.0f;
        void *packed = malloc(rl_qd8_gemm_packed_size(n, ks, kc, cfg->nr, cfg->kr));
        rl_pack_qd8_gemm(n, ks, kc, cfg->nr, cfg->kr, w, scales, bias, packed);
        for (size_t i0 = 0; i0 < mr; i0 += step) {
            const size_t m = mr - i0 < step ? mr - i0 : step;
            if (igemm) {
                const int8_t *ind[64 * MAX_MR];
                for (size_t p = 0; p < ks; ++p)
                    for (size_t i = 0; i < cfg->mr; ++i) /* slots past m repeat the last row */
                        ind[p * cfg->mr + i] = data[(i0 + (i < m ? i : m - 1)) * ks + p];
                if (u8) /* the rows plus 128, in place (the shared tap once); flipped back below */
                    for (size_t t = 0; t < ks * mr; ++t)
                        if (ks == 1 || t != ks * mr - 1) /* not the shared tap again */
                            for (size_t k = 0; k < kc; ++k) data[t][k] = (int8_t)(data[t][k] ^ 0x80);
                (u8 ? cfg->igemm_u8 : cfg->igemm)(m, nc, kc, ks, ind, packed, c + i0 * c_stride, c_stride, rows + i0,
                                                  &params);
                if (u8)
                    for (size_t t = 0; t < ks * mr; ++t)
                        if (ks == 1 || t != ks * mr - 1) /* not the shared tap again */
                            for (size_t k = 0; k < kc; ++k) data[t][k] = (int8_t)(data[t][k] ^ 0x80);
            } else {
                /* GEMM rows a_stride apart in one guarded block */
                size_t map = 0;
                const size_t a_stride = kc + (size_t)uniform(r, 0, 3);
                int8_t *a = guard_alloc((m - 1) * a_stride + kc, &map);
                for (size_t i = 0; i < m; ++i) memcpy(a + i * a_stride, data[(i0 + i) * ks], kc);
                if (u8)
                    for (size_t i = 0; i < m; ++i)
                        for (size_t k = 0; k < kc; ++k) a[i * a_stride + k] = (int8_t)(a[i * a_stride + k] ^ 0x80);
                gemm(m, nc, kc, a, a_stride, packed, c + i0 * c_stride, c_stride, rows + i0, &params);
                guard_free(a, (m - 1) * a_stride + kc, map);
            }
        }
        free(packed);
        outs[which] = c;
    }
    for (size_t i = 0; i < mr && !failed; ++i) {
        const int8_t *taps[64];
        for (size_t p = 0; p < ks; ++p) taps[p] = data[i * ks + p];
        for (size_t j = 0; j < n + GUARD; ++j) {
            const float a = outs[0][i * (n + GUARD) + j], s = outs[1][i * (n + GUARD) + j];
            const float u = outs[2][i * (n + GUARD) + j], o = outs[3][i * (n + GUARD) + j];
            const float f = outs[4][i * (n + GUARD) + j], v = outs[5][i * (n + GUARD) + j];
            const float want = j < n ? formula(taps, igemm ? ks : 1, kc, w, j, scales, bias, rows[i], &params)
                                     : -12345.0f;
            if (memcmp(&a, &want, sizeof a) != 0 || memcmp(&s, &want, sizeof s) != 0 ||
                memcmp(&u, &want, sizeof u) != 0 || memcmp(&o, &want, sizeof o) != 0 ||
                memcmp(&f, &want, sizeof f) != 0 || memcmp(&v, &want, sizeof v) != 0) {
                printf("%s mr %zu nc %zu kc %zu ks %zu row %zu col %zu: path %.9g scalar %.9g u8 %.9g 1-row %.9g "
                       "4-row %.9g 5-row %.9g want %.9g\n", igemm ? "igemm" : "gemm", mr, nc, kc, ks, i, j, a, s, u, o,
                       f, v, want);
                failed = 1;
                break;
            }
        }
    }
    if (igemm && ks > 1) data[ks * mr - 1] = replaced;
    for (size_t t = 0; t < ks * mr; ++t)
        if (data[t]) guard_free(data[t], kc, mapped[t]);
    for (int which = 0; which < 6; ++which) free(outs[which]);
    free(w), free(scales), free(bias);
    return failed;
}

/* TFLite's EvalHybridPerChannel for one channel, as qd8_f32_qc8w_dwconv2d_ref computes it. */
static float dw_formula(size_t c, size_t channels, size_t taps, const int8_t *const *input, const int8_t *w,
                        const rl_qd8_dwconv_params *p) {
    int64_t acc = 0;
    for (size_t t = 0; t < taps; ++t) acc += (int64_t)(input[t][c] - p->zero_point) * w[t * channels + c];
    const float a = (float)(int32_t)(uint32_t)acc;
    float y = c < p->scale_first_end ? a * p->scales[c] * p->image_scale : a * p->image_scale * p->scales[c];
    if (p->bias) y += p->bias[c];
    y = y < p->clamp.min ? p->clamp.min : y;
    return y > p->clamp.max ? p->clamp.max : y;
}

static int dwconv_case(rng *r, rl_qd8_dwconv_fn path, size_t channels, size_t taps) {
    int8_t *rows[32], *w = malloc(taps * channels);
    size_t mapped[32];
    float *scales = malloc(channels * sizeof(float)), *bias = malloc(channels * sizeof(float));
    float *outs[2];
    for (size_t t = 0; t < taps; ++t) {
        rows[t] = guard_alloc(channels, &mapped[t]);
        for (size_t c = 0; c < channels; ++c) rows[t][c] = (int8_t)uniform(r, -128, 127);
    }
    for (size_t i = 0; i < taps * channels; ++i) w[i] = (int8_t)uniform(r, -128, 127);
    for (size_t c = 0; c < channels; ++c) scales[c] = uniform_f(r, 1e-4f, 2e-2f), bias[c] = uniform_f(r, -2.0f, 2.0f);
    rl_qd8_dwconv_params p = {.zero_point = uniform(r, -128, 127), .image_scale = uniform_f(r, 1e-3f, 0.1f),
                              .scale_first_end = channels - channels % 4, .scales = scales,
                              .bias = next_u32(r) % 3 ? bias : NULL, .clamp = {-INFINITY, INFINITY}};
    if (next_u32(r) % 3 == 0) p.clamp.min = uniform_f(r, -3.0f, 0.0f), p.clamp.max = uniform_f(r, 0.0f, 3.0f);
    const rl_qd8_dwconv_fn kernels[2] = {path, qd8_f32_qc8w_dwconv__scalar};
    for (int which = 0; which < 2; ++which) {
        outs[which] = malloc((channels + GUARD) * sizeof(float));
        for (size_t c = 0; c < channels + GUARD; ++c) outs[which][c] = -12345.0f;
        kernels[which](channels, taps, (const int8_t *const *)rows, w, &p, outs[which]);
    }
    int failed = 0;
    for (size_t c = 0; c < channels + GUARD && !failed; ++c) {
        const float want = c < channels ? dw_formula(c, channels, taps, (const int8_t *const *)rows, w, &p) : -12345.0f;
        if (memcmp(&outs[0][c], &want, sizeof want) != 0 || memcmp(&outs[1][c], &want, sizeof want) != 0) {
            printf("dwconv channels %zu taps %zu channel %zu: path %.9g scalar %.9g want %.9g\n", channels, taps, c,
                   outs[0][c], outs[1][c], want);
            failed = 1;
        }
    }
    for (size_t t = 0; t < taps; ++t) guard_free(rows[t], channels, mapped[t]);
    free(outs[0]), free(outs[1]), free(w), free(scales), free(bias);
    return failed;
}

static float qd8_reference(int64_t n, const float *x, int8_t *q, int32_t *zero_point) {
    return f32_qd8_quantize_ref(n, 1, x, q, zero_point);
}

static int quantize_case(rng *r, const rl_qd8_quantize_config *path, size_t n, int mode) {
    float *x = malloc(n * sizeof(float));
    const float step = uniform_f(r, 0.01f, 0.1f);
    for (size_t i = 0; i < n; ++i) {
        switch (mode) {
        case 0: x[i] = uniform_f(r, -3.0f, 3.0f); break;
        case 1: x[i] = step * 0.5f * (float)uniform(r, -300, 200); break; /* half steps: ties */
        case 2: x[i] = uniform_f(r, 0.0f, 2.0f); break;
        case 3: x[i] = uniform_f(r, -2.0f, -0.5f); break;
        /* NaN skipped by the range and at the low end in the values; -0 beside 0 (NEON's fminnm orders them) */
        case 4: x[i] = i % 7 == 3 ? NAN : i % 5 == 1 ? -0.0f : uniform_f(r, 0.0f, 1.5f); break;
        default: x[i] = 0.75f; break;
        }
    }
    const rl_f32_quantize_fn got[2] = {path->qd8, path->tflite};
    const rl_f32_quantize_fn want[2] = {qd8_reference, f32_qs8_asymmetric_quantize_tflite_ref};
    int8_t *q[2] = {malloc(n + GUARD), malloc(n + GUARD)};
    int failed = 0;
    for (int which = 0; which < 2 && !failed; ++which) {
        int32_t zp[2];
        float scale[2];
        for (int k = 0; k < 2; ++k) {
            memset(q[k], 0x55, n + GUARD);
            scale[k] = (k ? want : got)[which]((int64_t)n, x, q[k], &zp[k]);
        }
        if (zp[0] != zp[1] || memcmp(&scale[0], &scale[1], sizeof(float)) != 0 || memcmp(q[0], q[1], n + GUARD) != 0) {
            printf("%s quantize n %zu mode %d: zero point %d vs %d, scale %.9g vs %.9g\n", which ? "tflite" : "qd8",
                   n, mode, zp[0], zp[1], scale[0], scale[1]);
            failed = 1;
        }
    }
    /* The three steps, the image cut into random parts whose ranges combine in a random order, give the same. */
    const rl_f32_quantize_values_fn values[2] = {path->qd8_values, path->tflite_values};
    for (int which = 0; which < 2 && !failed; ++which) {
        size_t cuts[6] = {0, n, 0, 0, 0, 0};
        for (int k = 2; k < 6; ++k) cuts[k] = (size_t)uniform(r, 0, (int32_t)n);
        for (int a = 1; a < 6; ++a) /* sorted */
            for (int b = a; b > 0 && cuts[b] < cuts[b - 1]; --b) {
                const size_t t = cuts[b];
                cuts[b] = cuts[b - 1], cuts[b - 1] = t;
            }
        float lo = 0.0f, hi = 0.0f;
        for (int k = 4; k >= 0; --k) { /* last part first */
            float part_lo = 0.0f, part_hi = 0.0f;
            path->rminmax((int64_t)(cuts[k + 1] - cuts[k]), x + cuts[k], &part_lo, &part_hi);
            lo = part_lo < lo ? part_lo : lo, hi = part_hi > hi ? part_hi : hi;
        }
        const rl_f32_qs8_quantization p = which ? rl_tflite_quantization_of_range(lo, hi)
                                                : rl_qd8_quantization_of_range(lo, hi);
        memset(q[0], 0x55, n + GUARD), memset(q[1], 0x55, n + GUARD);
        for (int k = 0; k < 5; ++k) values[which]((int64_t)(cuts[k + 1] - cuts[k]), x + cuts[k], q[0] + cuts[k], &p);
        int32_t zp = 0;
        const float scale = want[which]((int64_t)n, x, q[1], &zp);
        if (zp != p.zero_point || memcmp(&scale, &p.scale, sizeof(float)) != 0 || memcmp(q[0], q[1], n + GUARD) != 0) {
            printf("%s quantize in parts, n %zu mode %d: zero point %d vs %d, scale %.9g vs %.9g\n",
                   which ? "tflite" : "qd8", n, mode, p.zero_point, zp, p.scale, scale);
            failed = 1;
        }
    }
    free(x), free(q[0]), free(q[1]);
    return failed;
}

/* The path's quantize_u8 and quantize_values_u8 (qd8_gemm.h; the second on the range of the whole row): the
 * reference's scale, zero point and bytes, each byte plus 128. */
static int quantize_u8_case(rng *r, const rl_qd8_gemm_config *path, size_t n) {
    float *x = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) x[i] = uniform_f(r, -3.0f, 1.0f);
    int8_t *q[3] = {malloc(n + GUARD), malloc(n + GUARD), malloc(n + GUARD)};
    memset(q[0], 0x55, n + GUARD), memset(q[1], 0x55, n + GUARD), memset(q[2], 0x55, n + GUARD);
    int32_t zp[2];
    const float scale[2] = {path->quantize_u8((int64_t)n, x, q[0], &zp[0]),
                            qd8_reference((int64_t)n, x, q[1], &zp[1])};
    for (size_t i = 0; i < n; ++i) q[1][i] = (int8_t)(q[1][i] ^ 0x80);
    int failed = zp[0] != zp[1] || memcmp(&scale[0], &scale[1], sizeof(float)) != 0 ||
                 memcmp(q[0], q[1], n + GUARD) != 0;
    if (failed)
        printf("quantize_u8 n %zu: zero point %d vs %d, scale %.9g vs %.9g\n", n, zp[0], zp[1], scale[0], scale[1]);
    if (path->quantize_values_u8) {
        float lo = 0.0f, hi = 0.0f;
        f32_rminmax__scalar((int64_t)n, x, &lo, &hi);
        const rl_f32_qs8_quantization p = rl_qd8_quantization_of_range(lo, hi);
        path->quantize_values_u8((int64_t)n, x, q[2], &p);
        if (memcmp(q[2], q[1], n + GUARD) != 0) {
            printf("quantize_values_u8 n %zu: bytes differ from the reference's plus 128\n", n);
            failed = 1;
        }
    }
    free(x), free(q[0]), free(q[1]), free(q[2]);
    return failed;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: qd8_kernels_test scalar|avx2|avx512vnni|neon|neondot\n");
        return 2;
    }
    rl_qd8_gemm_config path, pairs = {.mr = 0};
    rl_qd8_dwconv_fn dwconv;
    rl_qd8_quantize_config quantize;
    if (strcmp(argv[1], "scalar") == 0) {
        path = rl_qd8_gemm_config_for(RL_ISA_SCALAR);
        dwconv = rl_qd8_dwconv_for(RL_ISA_SCALAR);
        quantize = rl_qd8_quantize_config_for(RL_ISA_SCALAR);
    } else if (strcmp(argv[1], "avx2") == 0) {
#if defined(__x86_64__)
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 77;
        path = rl_qd8_gemm_config_for(RL_ISA_AVX2);
        dwconv = rl_qd8_dwconv_for(RL_ISA_AVX2);
        quantize = rl_qd8_quantize_config_for(RL_ISA_AVX2);
#else
        return 77;
#endif
    } else if (strcmp(argv[1], "avx512vnni") == 0) {
#if defined(__x86_64__)
        if (!rl_isa_supported(RL_ISA_AVX512VNNI)) return 77;
        path = rl_qd8_gemm_config_for(RL_ISA_AVX512VNNI);
        dwconv = rl_qd8_dwconv_for(RL_ISA_AVX512VNNI);
        quantize = rl_qd8_quantize_config_for(RL_ISA_AVX512VNNI);
#else
        return 77;
#endif
    } else if (strcmp(argv[1], "neon") == 0 || strcmp(argv[1], "neondot") == 0) {
#if RL_HAVE_NEON_KERNELS
        const rl_isa isa = strcmp(argv[1], "neon") == 0 ? RL_ISA_NEON : RL_ISA_NEONDOT;
        if (!rl_isa_supported(isa)) return 77; /* HWCAP, as dispatch reads it */
        path = rl_qd8_gemm_config_for(isa);
        pairs = rl_qd8_gemm_pairs_config_for(isa);
        dwconv = rl_qd8_dwconv_for(isa);
        quantize = rl_qd8_quantize_config_for(isa);
#else
        return 77;
#endif
    } else {
        fprintf(stderr, "unknown path %s\n", argv[1]);
        return 2;
    }
    const rl_qd8_gemm_config scalar = rl_qd8_gemm_config_for(RL_ISA_SCALAR);
    rng r = {UINT64_C(0x9E3779B97F4A7C15)};
    const size_t kcs[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 32, 335, 336, 337, 673};
    const size_t ncs[] = {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40};
    const size_t kss[] = {1, 2, 3, 9};
    size_t cases = 0;
    int failed = 0;
    /* the path's tile, then its tile for weights without -128 where it has one */
    for (int with_pairs = 0; with_pairs < (pairs.gemm ? 2 : 1); ++with_pairs) {
        const rl_qd8_gemm_config *tile = with_pairs ? &pairs : &path;
        for (int igemm = 0; igemm < 2; ++igemm)
            for (size_t a = 0; a < sizeof kcs / sizeof kcs[0]; ++a)
                for (size_t b = 0; b < sizeof ncs / sizeof ncs[0]; ++b)
                    for (size_t s = 0; s < (igemm ? sizeof kss / sizeof kss[0] : 1); ++s) {
                        const int32_t most = (int32_t)tile->mr + 1 > MAX_MR ? MAX_MR : (int32_t)tile->mr + 1;
                        const size_t mr = (size_t)uniform(&r, 1, most);
                        failed |= gemm_case(&r, tile, &scalar, igemm, mr, ncs[b], kcs[a], kss[s], with_pairs ? -127 : -128);
                        ++cases;
                    }
    }
    const size_t channel_counts[] = {1, 3, 4, 5, 8, 15, 16, 17, 24, 31, 32, 33, 48, 96, 144};
    const size_t tap_counts[] = {1, 2, 4, 9, 25};
    for (size_t a = 0; a < sizeof channel_counts / sizeof channel_counts[0]; ++a)
        for (size_t b = 0; b < sizeof tap_counts / sizeof tap_counts[0]; ++b)
            for (int repeat = 0; repeat < 4; ++repeat, ++cases)
                failed |= dwconv_case(&r, dwconv, channel_counts[a], tap_counts[b]);
    const size_t lengths[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 1000, 4099};
    for (size_t a = 0; a < sizeof lengths / sizeof lengths[0]; ++a)
        for (int mode = 0; mode < 6; ++mode)
            for (int repeat = 0; repeat < 4; ++repeat, ++cases)
                failed |= quantize_case(&r, &quantize, lengths[a], mode);
    for (size_t a = 0; a < sizeof lengths / sizeof lengths[0] && path.quantize_u8; ++a, ++cases)
        failed |= quantize_u8_case(&r, &path, lengths[a]);
    printf("%s (gemm %ux%uc%u", argv[1], (unsigned)path.mr, (unsigned)path.nr, (unsigned)path.kr);
    if (pairs.gemm) printf(", gemm/igemm pairs %ux%uc%u", (unsigned)pairs.mr, (unsigned)pairs.nr, (unsigned)pairs.kr);
    printf("): %zu cases, %s\n", cases, failed ? "MISMATCH" : "ok");
    return failed;
}
