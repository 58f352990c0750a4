/* qs8_kernels_test.c — checks one instruction-set path's int8 GEMM, IGEMM and depthwise micro-kernels bit for
 * bit against the scalar kernels and against a plain formula on the unpacked weights (which checks the packers
 * too), on random cases around every tile edge; and its element-wise (vadd, vaddc, vmul, vmulc) and pooling
 * micro-kernels bit for bit against the scalar ones (the vector-and-constant scalar kernels against the
 * two-vector ones with the constant repeated), on lengths and channel counts around their blocks. Every input row and pointer ends where a PROT_NONE page
 * begins, so an over-read faults; guard bytes around each output row must stay untouched.
 *
 *   qs8_kernels_test scalar|avx2|avx512|avx512vnni|neon|neondot
 *       test that path (exit 0 pass, 1 mismatch, 77 CPU lacks it)
 *   qs8_kernels_test bench [avx2|avx512|avx512vnni]  GOP/s of that path against scalar on mobilenet_v2_035_96 shapes
 */
#include "kernel_tester.h" /* first: it sets _DEFAULT_SOURCE */

#include <math.h>
#include <time.h>

#include "kernels.h" /* rl_requantize_fp32: the requantization the kernels must reproduce */
#include "qs8_configs.h"

/* ---- one logical case: unpacked weights, bias, scales, requantization ---- */
typedef struct {
    size_t n, ks, kc;
    int8_t *w;      /* [n][ks][kc] (depthwise: [taps][channels]) */
    int32_t *bias;  /* n, or NULL */
    float *scales;  /* n */
    int32_t input_zero_point, output_zero_point, output_min, output_max;
    int data_mode, scale_mode;
} problem;

static const char *const DATA_MODES[] = {"random", "small (ties)", "extreme", "wrapping bias"};

static rl_qs8_requantization_params params_of(const problem *pb) {
    const rl_qs8_requantization_params params = {
        .min_less_zero_point = (float)(pb->output_min - pb->output_zero_point),
        .max_less_zero_point = (float)(pb->output_max - pb->output_zero_point),
        .output_zero_point = pb->output_zero_point, .input_zero_point = pb->input_zero_point};
    return params;
}

static int8_t random_input(rng *r, const problem *pb) {
    switch (pb->data_mode) {
    case 1: {
        const int32_t v = pb->input_zero_point + rng_range(r, -3, 3);
        return (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
    case 2: return -128;
    default: return (int8_t)rng_range(r, -128, 127);
    }
}

/* Fills weights, bias, scales, zero points and the output range of a problem of n channels of depth ks * kc. */
static void make_problem(rng *r, problem *pb, size_t n, size_t ks, size_t kc, int32_t input_zero_point,
                         int data_mode) {
    pb->n = n, pb->ks = ks, pb->kc = kc;
    pb->input_zero_point = input_zero_point;
    pb->data_mode = data_mode >= 0 ? data_mode : (rng_range(r, 0, 9) < 5 ? 0 : rng_range(r, 1, 3));
    pb->scale_mode = rng_range(r, 0, 2);
    pb->w = malloc(n * ks * kc + 1);
    pb->bias = rng_range(r, 0, 5) == 0 ? NULL : malloc(n * sizeof(int32_t));
    pb->scales = malloc(n * sizeof(float));
    const int32_t extreme_w = rng_range(r, 0, 2) == 0 ? -127 : 127;
    for (size_t i = 0; i < n * ks * kc; ++i) {
        switch (pb->data_mode) {
        case 1: pb->w[i] = (int8_t)rng_range(r, -3, 3); break;
        case 2: pb->w[i] = (int8_t)(rng_range(r, 0, 3) == 0 ? -extreme_w : extreme_w); break;
        default: pb->w[i] = (int8_t)rng_range(r, -128, 127); break;
        }
    }
    for (size_t j = 0; j < n; ++j) {
        if (pb->bias) {
            switch (pb->data_mode) {
            case 1: pb->bias[j] = rng_range(r, -20, 20); break;
            case 3: pb->bias[j] = (int32_t)rng_next(r); break;
            default: pb->bias[j] = rng_range(r, -50000, 50000); break;
            }
        }
        float scale;
        if (pb->scale_mode == 0 || pb->data_mode == 1) { /* powers of two: exact ties */
            scale = 1.0f;
            for (int32_t e = rng_range(r, 0, pb->data_mode == 1 ? 3 : 12); e > 0; --e) scale *= 0.5f;
        } else { /* outputs spread over the int8 range */
            const float spread = (float)(128 * 64) * (float)(1 + ks * kc / 8);
            scale = (float)rng_range(r, 100, 4000) / 1000.0f * 127.0f / spread;
        }
        pb->scales[j] = scale;
    }
    pb->output_zero_point = rng_range(r, -128, 127);
    switch (rng_range(r, 0, 3)) {
    case 0: pb->output_min = -128, pb->output_max = 127; break;
    case 1: pb->output_min = pb->output_zero_point, pb->output_max = 127; break; /* RELU */
    case 2: pb->output_min = pb->output_zero_point;                               /* RELU6-like */
        pb->output_max = pb->output_zero_point + rng_range(r, 0, 127);
        if (pb->output_max > 127) pb->output_max = 127;
        break;
    default:
        pb->output_min = rng_range(r, -128, 127), pb->output_max = rng_range(r, -128, 127);
        if (pb->output_min > pb->output_max) {
            const int32_t t = pb->output_min;
            pb->output_min = pb->output_max, pb->output_max = t;
        }
    }
}

static void free_problem(problem *pb) {
    free(pb->w);
    free(pb->bias);
    free(pb->scales);
}

/* The formula: bias + sum((x - zero_point) * w) in int64, its low 32 bits, then rl_requantize_fp32. Tap p's
 * row is taps[p * tap_stride]; the weight of (col, p, k) is w[col][p][k], or w[p][col] when depthwise. */
static int8_t formula(const problem *pb, size_t col, const int8_t *const *taps, size_t tap_stride, int depthwise) {
    int64_t total = pb->bias ? pb->bias[col] : 0;
    for (size_t p = 0; p < pb->ks; ++p) {
        for (size_t k = 0; k < pb->kc; ++k) {
            const int8_t w = depthwise ? pb->w[p * pb->n + col] : pb->w[(col * pb->ks + p) * pb->kc + k];
            total += (int64_t)(taps[p * tap_stride][k] - pb->input_zero_point) * w;
        }
    }
    const rl_s8_requantization rq = {.input_zero_point = pb->input_zero_point,
                                     .output_zero_point = pb->output_zero_point,
                                     .output_min = pb->output_min, .output_max = pb->output_max,
                                     .scale = pb->scales};
    return rl_requantize_fp32((int32_t)(uint32_t)(uint64_t)total, pb->scales[col], &rq);
}

/* ---- GEMM and IGEMM ---- */
typedef struct {
    const char *name;
    rl_qs8_gemm_config config;
    int no_min_weight; /* config is a rl_qs8_gemm_pairs_config_for one: no weight may be -128 */
} gemm_path;

/* Packs pb for one config and runs its GEMM (rows of a, a_stride apart) or IGEMM (tap p's row i is
 * rows[p * 64 + i], passed through an indirection buffer built for the config's MR, its unused slots pointing
 * into a PROT_NONE page) over mr rows, in blocks of the config's MR as a driver would (one call for all of them
 * where the config says its kernels take any number of rows), into a new buffer of
 * guard + (mr + MR) * c_stride + guard bytes filled with sentinel; c starts at byte guard. */
static size_t gemm_output_bytes(const gemm_path *path, size_t mr, size_t c_stride, size_t guard) {
    return guard + (mr + path->config.mr) * c_stride + guard;
}

static int8_t *run_gemm(const gemm_path *path, const problem *pb, int igemm, size_t mr, const int8_t *a,
                        size_t a_stride, const int8_t *const *rows, const int8_t *poison, guard_set *g,
                        size_t c_stride, unsigned char sentinel, size_t guard) {
    const rl_qs8_gemm_config *cfg = &path->config;
    void *packed = guard_alloc(g, rl_qs8_gemm_packed_size(pb->n, pb->ks, pb->kc, cfg->nr, cfg->kr));
    rl_pack_qs8_gemm_for(cfg, pb->n, pb->ks, pb->kc, pb->input_zero_point, pb->w, pb->bias, pb->scales, packed);
    const size_t c_bytes = gemm_output_bytes(path, mr, c_stride, guard);
    unsigned char *c = malloc(c_bytes);
    memset(c, sentinel, c_bytes);
    const rl_qs8_requantization_params params = params_of(pb);
    const size_t blocks = (mr + cfg->mr - 1) / cfg->mr;
    const int8_t **indirection = malloc(blocks * pb->ks * cfg->mr * sizeof *indirection);
    for (size_t i0 = 0; i0 < mr; i0 += cfg->mr) {
        const size_t rows_now = mr - i0 < cfg->mr ? mr - i0 : cfg->mr;
        int8_t *c_block = (int8_t *)(c + guard + i0 * c_stride);
        const int8_t **block = indirection + i0 / cfg->mr * pb->ks * cfg->mr;
        if (igemm) {
            for (size_t p = 0; p < pb->ks; ++p) {
                for (size_t i = 0; i < cfg->mr; ++i) {
                    block[p * cfg->mr + i] = i < rows_now ? rows[p * 64 + i0 + i] : poison;
                }
            }
        }
        if (cfg->any_m) continue; /* one call for all the blocks, below */
        if (igemm)
            cfg->igemm(rows_now, pb->n, pb->kc, pb->ks, block, packed, c_block, c_stride, &params);
        else
            cfg->gemm(rows_now, pb->n, pb->kc, a + i0 * a_stride, a_stride, packed, c_block, c_stride, &params);
    }
    if (cfg->any_m && igemm)
        cfg->igemm(mr, pb->n, pb->kc, pb->ks, indirection, packed, (int8_t *)(c + guard), c_stride, &params);
    else if (cfg->any_m)
        cfg->gemm(mr, pb->n, pb->kc, a, a_stride, packed, (int8_t *)(c + guard), c_stride, &params);
    free(indirection);
    return (int8_t *)c;
}

static void print_gemm_case(const char *what, const problem *pb, int igemm, size_t mr, size_t a_stride,
                            size_t c_stride) {
    fprintf(stderr, "%s: %s mr=%zu nc=%zu kc=%zu ks=%zu a_stride=%zu c_stride=%zu input_zp=%d output_zp=%d "
                    "range=[%d,%d] data=%s scale_mode=%d bias=%s\n",
            what, igemm ? "igemm" : "gemm", mr, pb->n, pb->kc, pb->ks, a_stride, c_stride, pb->input_zero_point,
            pb->output_zero_point, pb->output_min, pb->output_max, DATA_MODES[pb->data_mode], pb->scale_mode,
            pb->bias ? "yes" : "none");
}

/* Returns the number of failures (0 or 1) of one random GEMM/IGEMM case on `path` (and scalar). */
static int gemm_case(rng *r, const gemm_path *path, const gemm_path *scalar, int igemm, size_t mr, size_t nc,
                     size_t kc, size_t ks, int32_t input_zero_point, int data_mode) {
    guard_set *g = calloc(1, sizeof *g);
    problem pb;
    make_problem(r, &pb, nc, ks, kc, input_zero_point, data_mode);
    if (path->no_min_weight) /* a tile for filters without -128 (the pairs config): its weights -127 at the least */
        for (size_t i = 0; i < nc * ks * kc; ++i) pb.w[i] = pb.w[i] == -128 ? -127 : pb.w[i];
    const size_t a_stride = kc + (size_t)rng_range(r, 0, 2) * (size_t)rng_range(r, 1, 9);
    const size_t c_stride = nc + (size_t)rng_range(r, 0, 3);
    const size_t guard = 16;
    const unsigned char sentinel = (unsigned char)rng_range(r, 0, 255);
    /* GEMM: one block of mr rows; IGEMM: a pool of guarded rows and the zero buffer, picked at random. */
    int8_t *a = NULL;
    const int8_t *rows[9 * 64];
    const int8_t *poison = guard_alloc(g, 0);
    if (igemm) {
        int8_t *zero = guard_alloc(g, kc);
        memset(zero, input_zero_point, kc);
        enum { POOL = 12 };
        int8_t *pool[POOL];
        for (size_t i = 0; i < POOL; ++i) {
            pool[i] = guard_alloc(g, kc);
            for (size_t k = 0; k < kc; ++k) pool[i][k] = random_input(r, &pb);
        }
        for (size_t p = 0; p < ks; ++p) {
            for (size_t i = 0; i < mr; ++i) {
                rows[p * 64 + i] = rng_range(r, 0, 4) == 0 ? zero : pool[rng_range(r, 0, POOL - 1)];
            }
        }
    } else {
        a = guard_alloc(g, (mr - 1) * a_stride + kc);
        for (size_t i = 0; i < mr; ++i) {
            for (size_t k = 0; k < kc; ++k) a[i * a_stride + k] = random_input(r, &pb);
            rows[i] = a + i * a_stride;
        }
    }
    int8_t *expected = malloc(mr * nc + 1);
    for (size_t i = 0; i < mr; ++i) {
        for (size_t j = 0; j < nc; ++j) expected[i * nc + j] = formula(&pb, j, rows + i, 64, 0);
    }
    int failures = 0;
    const gemm_path *paths[2] = {scalar, path};
    for (size_t which = 0; which < (path == scalar ? 1u : 2u) && !failures; ++which) {
        int8_t *c = run_gemm(paths[which], &pb, igemm, mr, a, a_stride, rows, poison, g, c_stride, sentinel, guard);
        const size_t c_bytes = gemm_output_bytes(paths[which], mr, c_stride, guard);
        for (size_t b = 0; b < c_bytes && !failures; ++b) {
            const size_t off = b - guard, i = off / c_stride, j = off % c_stride;
            const int inside = b >= guard && i < mr && j < nc;
            if (inside && c[b] != expected[i * nc + j]) {
                print_gemm_case(paths[which]->name, &pb, igemm, mr, a_stride, c_stride);
                fprintf(stderr, "  row %zu column %zu: got %d, formula gives %d\n", i, j, c[b], expected[i * nc + j]);
                failures = 1;
            } else if (!inside && (unsigned char)c[b] != sentinel) {
                print_gemm_case(paths[which]->name, &pb, igemm, mr, a_stride, c_stride);
                fprintf(stderr, "  wrote outside its output: byte %zu of the buffer (guard %zu)\n", b, guard);
                failures = 1;
            }
        }
        free(c);
    }
    free(expected);
    free_problem(&pb);
    guard_free_all(g);
    free(g);
    return failures;
}

static int test_gemm(rng *r, const gemm_path *path, const gemm_path *scalar, size_t *cases) {
    static const int32_t zero_points[] = {-128, 0, 5, 127};
    static const size_t kss[] = {1, 2, 9};
    const size_t mr_max = path->config.mr, nr = path->config.nr, kr = path->config.kr;
    /* Columns around the tile's nr, and around the 8-wide last panel of an nr of 16 (gemm.h): every count to 9,
     * and 15-17, 23-25, 31-33, 56 (a narrow panel after one, two or three whole ones). */
    static const size_t fixed_ncs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 56};
    size_t ncs[32], n_nc = 0;
    for (size_t i = 0; i < sizeof fixed_ncs / sizeof *fixed_ncs; ++i) ncs[n_nc++] = fixed_ncs[i];
    const size_t around[] = {nr - 1, nr, nr + 1, 2 * nr + 1};
    for (size_t i = 0; i < sizeof around / sizeof *around; ++i) {
        size_t j = 0;
        while (j < n_nc && ncs[j] != around[i]) ++j;
        if (j == n_nc) ncs[n_nc++] = around[i];
    }
    /* Depths around the tile's kr, around the 4-, 8- and 16-byte pieces kernels load rows in, and past the
     * few hundred a kernel may buffer at once (odd, so a chunk boundary falls inside a pair). */
    static const size_t fixed_kcs[] = {4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 509, 1021};
    size_t kcs[32], n_kc = 0;
    for (size_t kc = 1; kc <= kr + 1; ++kc) kcs[n_kc++] = kc;
    kcs[n_kc++] = 2 * kr - 1, kcs[n_kc++] = 2 * kr, kcs[n_kc++] = 2 * kr + 1;
    for (size_t i = 0; i < sizeof fixed_kcs / sizeof *fixed_kcs; ++i) kcs[n_kc++] = fixed_kcs[i];
    /* Without repeats (kr 1 and 2 give some twice). */
    size_t n_unique = 0;
    for (size_t i = 0; i < n_kc; ++i) {
        size_t j = 0;
        while (j < n_unique && kcs[j] != kcs[i]) ++j;
        if (j == n_unique) kcs[n_unique++] = kcs[i];
    }
    n_kc = n_unique;
    int failures = 0;
    for (int igemm = 0; igemm < 2; ++igemm) {
        /* A kernel that walks blocks of MR rows itself also gets a whole block and a partial one (MR + 2), and two
         * whole ones and a partial one (2 MR + 1). */
        for (size_t im = 0; im < mr_max + (path->config.any_m ? 2 : 0); ++im) {
            const size_t mr = im < mr_max ? im + 1 : im == mr_max ? mr_max + 2 : 2 * mr_max + 1;
            for (size_t in = 0; in < n_nc; ++in) {
                if (ncs[in] == 0) continue;
                for (size_t ik = 0; ik < n_kc; ++ik) {
                    for (size_t is = 0; is < (igemm ? 3u : 1u); ++is) {
                        for (size_t iz = 0; iz < 4; ++iz) {
                            failures += gemm_case(r, path, scalar, igemm, mr, ncs[in], kcs[ik], kss[is],
                                                  zero_points[iz], -1);
                            ++*cases;
                            if (failures) return failures;
                        }
                    }
                }
            }
        }
        /* Depths whose extreme sums pass 2^31: the accumulator must wrap, not saturate. */
        for (size_t rep = 0; rep < 4; ++rep) {
            const size_t kc = igemm ? 16384 + (size_t)rng_range(r, 0, 9) : 150000 + (size_t)rng_range(r, 0, 9);
            failures += gemm_case(r, path, scalar, igemm, (size_t)rng_range(r, 1, (int32_t)mr_max), nr + 1, kc,
                                  igemm ? 9 : 1, rep % 2 ? 127 : -128, 2);
            ++*cases;
            if (failures) return failures;
        }
    }
    return failures;
}

/* ---- depthwise ---- */
typedef struct {
    const char *name;
    rl_qs8_dwconv_config config;
    int no_min_weight; /* config.dwconv is a dwconv_pairs kernel: no weight may be -128 */
} dwconv_path;

static int dwconv_case(rng *r, const dwconv_path *path, const dwconv_path *scalar, size_t channels, size_t taps,
                       size_t pixels, int32_t input_zero_point) {
    guard_set *g = calloc(1, sizeof *g);
    problem pb;
    make_problem(r, &pb, channels, taps, 1, input_zero_point, -1);
    if (path->no_min_weight) /* a kernel for filters without -128 (dwconv_pairs): its weights -127 at the least */
        for (size_t i = 0; i < channels * taps; ++i) pb.w[i] = pb.w[i] == -128 ? -127 : pb.w[i];
    const size_t step = taps + (size_t)rng_range(r, 0, 1) * (size_t)rng_range(r, 1, 3);
    const size_t out_stride = channels + (size_t)rng_range(r, 0, 3), guard = 16;
    const unsigned char sentinel = (unsigned char)rng_range(r, 0, 255);
    int8_t *zero = guard_alloc(g, channels);
    memset(zero, input_zero_point, channels);
    enum { POOL = 16 };
    int8_t *pool[POOL];
    for (size_t i = 0; i < POOL; ++i) {
        pool[i] = guard_alloc(g, channels);
        for (size_t k = 0; k < channels; ++k) pool[i][k] = random_input(r, &pb);
    }
    const int8_t *poison = guard_alloc(g, 0);
    const int8_t **indirection = malloc(pixels * step * sizeof *indirection);
    for (size_t i = 0; i < pixels * step; ++i) {
        indirection[i] = i % step >= taps ? poison : (rng_range(r, 0, 4) == 0 ? zero : pool[rng_range(r, 0, POOL - 1)]);
    }
    /* The formula's tap t of channel c: indirection[t][c] * w[t * channels + c]; rows shifted per channel. */
    int8_t *expected = malloc(pixels * channels);
    const int8_t **shifted = malloc(taps * sizeof *shifted);
    for (size_t px = 0; px < pixels; ++px) {
        for (size_t c = 0; c < channels; ++c) {
            for (size_t t = 0; t < taps; ++t) shifted[t] = indirection[px * step + t] + c;
            expected[px * channels + c] = formula(&pb, c, shifted, 1, 1);
        }
    }
    free(shifted);
    const rl_qs8_requantization_params params = params_of(&pb);
    int failures = 0;
    const dwconv_path *paths[2] = {scalar, path};
    /* The weights as kernels read them in place: each tap's channels in a block of its own that ends where a
     * PROT_NONE page begins (a read past a tap's channels faults), so a kernel that found tap t at
     * weights[0] + t * channels, or read a whole tile of a last partial one, fails. */
    const int8_t **weights = malloc(taps * sizeof *weights);
    for (size_t t = 0; t < taps; ++t) {
        int8_t *tap = guard_alloc(g, channels);
        memcpy(tap, pb.w + t * channels, channels);
        weights[t] = tap;
    }
    for (size_t which = 0; which < (path == scalar ? 1u : 2u) && !failures; ++which) {
        const size_t ct = paths[which]->config.channel_tile;
        void *packed = guard_alloc(g, rl_qs8_dwconv_packed_size(channels, ct));
        rl_pack_qs8_dwconv(channels, taps, ct, input_zero_point, pb.w, pb.bias, pb.scales, packed);
        const size_t bytes = guard + pixels * out_stride + guard;
        unsigned char *out = malloc(bytes);
        memset(out, sentinel, bytes);
        paths[which]->config.dwconv(channels, pixels, taps, indirection, step, weights, packed,
                                    (int8_t *)(out + guard), out_stride, &params);
        for (size_t b = 0; b < bytes && !failures; ++b) {
            const size_t off = b - guard, px = off / out_stride, c = off % out_stride;
            const int inside = b >= guard && px < pixels && c < channels;
            if ((inside && (int8_t)out[b] != expected[px * channels + c]) || (!inside && out[b] != sentinel)) {
                fprintf(stderr, "%s: dwconv channels=%zu taps=%zu pixels=%zu step=%zu out_stride=%zu input_zp=%d "
                                "output_zp=%d range=[%d,%d] data=%s bias=%s\n",
                        paths[which]->name, channels, taps, pixels, step, out_stride, input_zero_point,
                        pb.output_zero_point, pb.output_min, pb.output_max, DATA_MODES[pb.data_mode],
                        pb.bias ? "yes" : "none");
                if (inside) {
                    fprintf(stderr, "  pixel %zu channel %zu: got %d, formula gives %d\n", px, c, (int8_t)out[b],
                            expected[px * channels + c]);
                } else {
                    fprintf(stderr, "  wrote outside its output: byte %zu of the buffer (guard %zu)\n", b, guard);
                }
                failures = 1;
            }
        }
        free(out);
    }
    free(indirection);
    free(weights);
    free(expected);
    free_problem(&pb);
    guard_free_all(g);
    free(g);
    return failures;
}

static int test_dwconv(rng *r, const dwconv_path *path, const dwconv_path *scalar, size_t *cases) {
    static const int32_t zero_points[] = {-128, 0, 5, 127};
    /* 49 taps: past the 32 a kernel may keep extended at once (the AVX2 kernel's chunks of 32, then 17). */
    static const size_t tapss[] = {1, 4, 9, 25, 49};
    /* Every count of pixels per pass up to the AVX2 kernel's 6, a full pass plus a remainder, several passes. */
    static const size_t pixelss[] = {1, 2, 3, 4, 5, 6, 7, 13};
    const size_t ct = path->config.channel_tile;
    /* Around one and two tiles, and the 8 and 24 channels MobileNet layers leave past a 16-channel tile. */
    const size_t channelss[] = {ct - 1, ct, ct + 1, 2 * ct - 1, 2 * ct + 3, 1, 3, 8, 24};
    int failures = 0;
    for (size_t ic = 0; ic < sizeof channelss / sizeof *channelss; ++ic) {
        if (channelss[ic] == 0) continue;
        for (size_t it = 0; it < sizeof tapss / sizeof *tapss; ++it) {
            for (size_t ip = 0; ip < sizeof pixelss / sizeof *pixelss; ++ip) {
                for (size_t iz = 0; iz < 4; ++iz) {
                    failures += dwconv_case(r, path, scalar, channelss[ic], tapss[it], pixelss[ip], zero_points[iz]);
                    ++*cases;
                    if (failures) return failures;
                }
            }
        }
    }
    return failures;
}

/* ---- element-wise: vadd, vaddc, vmul, vmulc ---- */
static float log_uniform(rng *r, float lo, float hi) {
    const float u = (float)rng_next(r) / 4294967296.0f;
    return expf(logf(lo) + u * (logf(hi) - logf(lo)));
}

/* Random parameters of one kind as elementwise_int8.c's prepare makes them: XNNPACK's ADD/SUB multipliers
 * and shift from input-to-output ratios in [1/1024, 256) (a negative b ratio for SUB), MUL's float scale
 * in [1/65536, 256). */
static rl_s8_binary_params random_binary_params(rng *r, int mul) {
    rl_s8_binary_params p;
    memset(&p, 0, sizeof p);
    p.a_zero_point = rng_range(r, -128, 127);
    p.b_zero_point = rng_range(r, -128, 127);
    p.output_zero_point = rng_range(r, -128, 127);
    p.act_min = rng_range(r, -128, 127);
    p.act_max = rng_range(r, p.act_min, 127);
    if (rng_range(r, 0, 2) == 0) { /* the full range half the time, so the rounding shows */
        p.act_min = -128;
        p.act_max = 127;
    }
    if (mul) {
        p.kind = RL_S8_MUL_XNNPACK;
        p.scale = log_uniform(r, 1.0f / 65536.0f, 255.0f);
        return p;
    }
    p.kind = RL_S8_ADDSUB_XNNPACK;
    const float a_ratio = log_uniform(r, 1.0f / 1024.0f, 255.0f);
    const float b_ratio = log_uniform(r, 1.0f / 1024.0f, 255.0f) * (rng_range(r, 0, 1) ? -1.0f : 1.0f);
    const float larger = fabsf(a_ratio) > fabsf(b_ratio) ? fabsf(a_ratio) : fabsf(b_ratio);
    int exponent;
    frexpf(larger, &exponent); /* larger = m * 2^exponent, m in [0.5, 1): the IEEE exponent is exponent - 1 */
    p.xnn_shift = 20 - (exponent - 1);
    p.xnn_a_multiplier = (int32_t)lrintf(ldexpf(a_ratio, p.xnn_shift));
    p.xnn_b_multiplier = (int32_t)lrintf(ldexpf(b_ratio, p.xnn_shift));
    p.xnn_bias = (int32_t)(1u << (p.xnn_shift - 1)) - p.xnn_a_multiplier * p.a_zero_point -
                 p.xnn_b_multiplier * p.b_zero_point;
    return p;
}

static const char *const VBINARY_NAMES[4] = {"vadd", "vaddc", "vmul", "vmulc"};

static rl_qs8_vbinary_fn vbinary_kernel(const rl_qs8_vbinary_config *config, int which) {
    const rl_qs8_vbinary_fn kernels[4] = {config->vadd, config->vaddc, config->vmul, config->vmulc};
    return kernels[which];
}

/* One call of kernel `which` (0 vadd, 1 vaddc, 2 vmul, 3 vmulc) of the path and of scalar on n elements whose
 * inputs end at a PROT_NONE page; the output's guard bytes must stay untouched. */
static int vbinary_case(rng *r, const char *name, const rl_qs8_vbinary_config *path, int which, size_t n,
                        int extreme) {
    const rl_qs8_vbinary_config scalar = rl_qs8_vbinary_config_for(RL_ISA_SCALAR);
    const int constant = which == 1 || which == 3;
    const rl_s8_binary_params p = random_binary_params(r, which >= 2);
    guard_set *g = calloc(1, sizeof *g);
    int8_t *a = guard_alloc(g, n), *b = guard_alloc(g, constant ? 1 : n);
    for (size_t i = 0; i < n; ++i) a[i] = (int8_t)(extreme ? (rng_range(r, 0, 1) ? 127 : -128) : rng_range(r, -128, 127));
    for (size_t i = 0; i < (constant ? 1 : n); ++i)
        b[i] = (int8_t)(extreme ? (rng_range(r, 0, 1) ? 127 : -128) : rng_range(r, -128, 127));
    /* the specification: the two-vector scalar kernel; for a constant, with it repeated */
    int8_t *repeated = malloc(n + 1), *expected = malloc(n + 1);
    for (size_t i = 0; i < n; ++i) repeated[i] = constant ? b[0] : b[i];
    (which >= 2 ? scalar.vmul : scalar.vadd)(n, a, repeated, expected, &p);
    unsigned char *out = malloc(n + 2 * GUARD_BYTES);
    int failures = 0;
    const rl_qs8_vbinary_fn kernels[2] = {vbinary_kernel(&scalar, which), vbinary_kernel(path, which)};
    for (int k = 0; k < 2 && !failures; ++k) {
        memset(out, 0xA5, n + 2 * GUARD_BYTES);
        kernels[k](n, a, b, (int8_t *)(out + GUARD_BYTES), &p);
        const size_t at = s8_block_mismatch(out, n, 0xA5, expected);
        if (at != SIZE_MAX) {
            fprintf(stderr, "%s: %s n=%zu zero points a=%d b=%d out=%d range=[%d,%d] multipliers %d %d shift %d "
                            "scale %.9g%s\n", k ? name : "scalar", VBINARY_NAMES[which], n, p.a_zero_point,
                    p.b_zero_point, p.output_zero_point, p.act_min, p.act_max, p.xnn_a_multiplier,
                    p.xnn_b_multiplier, p.xnn_shift, (double)p.scale, extreme ? " (extreme inputs)" : "");
            report_s8_block_mismatch(out, n, at, expected, "element");
            failures = 1;
        }
    }
    free(out);
    free(repeated);
    free(expected);
    guard_free_all(g);
    free(g);
    return failures;
}

static int test_vbinary(rng *r, const char *name, rl_isa isa, size_t *cases) {
    const rl_qs8_vbinary_config path = rl_qs8_vbinary_config_for(isa);
    /* every length to 70 (the 16-element blocks' edges and tails), then long rows */
    static const size_t longer[] = {127, 128, 129, 511, 512, 513, 1000, 1024, 4099};
    int failures = 0;
    for (int which = 0; which < 4; ++which) {
        for (size_t i = 0; i < 71 + sizeof longer / sizeof *longer && !failures; ++i) {
            const size_t n = i < 71 ? i : longer[i - 71];
            for (int rep = 0; rep < 4 && !failures; ++rep) {
                failures += vbinary_case(r, name, &path, which, n, rep == 3);
                ++*cases;
            }
        }
    }
    return failures;
}

/* ---- pooling: max and average over a window's taps ---- */
static int pool_case(rng *r, const char *name, const rl_qs8_pool_config *path, int average, size_t channels,
                     size_t taps) {
    const rl_qs8_pool_config scalar = rl_qs8_pool_config_for(RL_ISA_SCALAR);
    guard_set *g = calloc(1, sizeof *g);
    const int8_t **input = malloc((taps + 1) * sizeof *input);
    int8_t **rows = malloc((taps + 1) * sizeof *rows);
    /* 0: random with saturated values; 1: small values (many sums at exact halves of the count); 2: every
     * channel's sum exactly half a count past a multiple of it, so |sum| + count / 2 is a multiple of the
     * count: where a reciprocal that rounds down gives a quotient one short */
    const int mode = rng_range(r, 0, 2);
    for (size_t t = 0; t < taps; ++t) {
        int8_t *x = guard_alloc(g, channels);
        for (size_t c = 0; c < channels; ++c)
            x[c] = (int8_t)(mode == 1 ? rng_range(r, -3, 3) : (rng_range(r, 0, 3) == 0 ? (rng_range(r, 0, 1) ? 127 : -128)
                                                                                    : rng_range(r, -128, 127)));
        input[t] = rows[t] = x;
    }
    if (mode == 2 && taps > 0) {
        const int32_t count = (int32_t)taps;
        for (size_t c = 0; c < channels; ++c) {
            const int32_t sign = rng_range(r, 0, 1) ? 1 : -1;
            const int32_t sum = sign * (rng_range(r, 0, 100) * count + count - count / 2);
            const int32_t base = sum / count, rest = sum - base * count; /* |rest| < taps: spread one each */
            for (size_t t = 0; t < taps; ++t) rows[t][c] = (int8_t)(base + ((int32_t)t < rest * sign ? sign : 0));
        }
    }
    int32_t min = rng_range(r, -128, 127), max = rng_range(r, min, 127);
    if (rng_range(r, 0, 1)) {
        min = -128;
        max = 127;
    }
    int8_t *expected = malloc(channels + 1);
    unsigned char *out = malloc(channels + 2 * GUARD_BYTES);
    (average ? scalar.avgpool : scalar.maxpool)(channels, taps, input, expected, min, max);
    memset(out, 0x5A, channels + 2 * GUARD_BYTES);
    (average ? path->avgpool : path->maxpool)(channels, taps, input, (int8_t *)(out + GUARD_BYTES), min, max);
    const size_t at = s8_block_mismatch(out, channels, 0x5A, expected);
    if (at != SIZE_MAX) {
        fprintf(stderr, "%s: %s channels=%zu taps=%zu range=[%d,%d]\n", name, average ? "avgpool" : "maxpool",
                channels, taps, min, max);
        report_s8_block_mismatch(out, channels, at, expected, "channel");
    }
    free(out);
    free(expected);
    free(input);
    free(rows);
    guard_free_all(g);
    free(g);
    return at != SIZE_MAX;
}

static int test_pool(rng *r, const char *name, rl_isa isa, size_t *cases) {
    const rl_qs8_pool_config path = rl_qs8_pool_config_for(isa);
    /* windows from none in bounds to the driver's largest (8x8), and the counts whose float reciprocal
     * rounds down far enough to cut a quotient short (41, 47, 55, 61); channels around the 16- and 32-byte
     * blocks */
    static const size_t tapss[] = {0, 1, 2, 3, 4, 6, 9, 25, 41, 47, 49, 55, 61, 63, 64};
    static const size_t channelss[] = {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 100};
    int failures = 0;
    for (int average = 0; average < 2; ++average)
        for (size_t it = 0; it < sizeof tapss / sizeof *tapss && !failures; ++it)
            for (size_t ic = 0; ic < sizeof channelss / sizeof *channelss && !failures; ++ic)
                for (int rep = 0; rep < 3 && !failures; ++rep) {
                    failures += pool_case(r, name, &path, average, channelss[ic], tapss[it]);
                    ++*cases;
                }
    return failures;
}

/* ---- bilinear resizing (XNNPACK's int8 arithmetic): one output row ---- */
/* out_w pixels of `channels` from two input rows of in_w pixels, each ending at a PROT_NONE page; weights at the
 * ends (0, 2048) and between, columns in any order (a column's pair may be the same pixel twice). */
static int ibilinear_case(rng *r, const char *name, rl_s8_ibilinear_fn kernel, size_t channels, size_t out_w,
                          int extreme) {
    guard_set *g = calloc(1, sizeof *g);
    const size_t in_w = (size_t)rng_range(r, 1, 5);
    int8_t *top = guard_alloc(g, in_w * channels), *bottom = guard_alloc(g, in_w * channels);
    for (size_t i = 0; i < in_w * channels; ++i) {
        top[i] = (int8_t)(extreme ? (rng_range(r, 0, 1) ? 127 : -128) : rng_range(r, -128, 127));
        bottom[i] = (int8_t)(extreme ? (rng_range(r, 0, 1) ? 127 : -128) : rng_range(r, -128, 127));
    }
    rl_ibilinear_tap *cols = guard_alloc(g, out_w * sizeof *cols);
    for (size_t ox = 0; ox < out_w; ++ox) {
        cols[ox].lower = rng_range(r, 0, (int32_t)in_w - 1);
        cols[ox].upper = rng_range(r, 0, (int32_t)in_w - 1);
        const int32_t pick = rng_range(r, 0, 3);
        cols[ox].alpha_q11 = pick == 0 ? 0 : pick == 1 ? 2048 : rng_range(r, 0, 2048);
        cols[ox].alpha = (float)cols[ox].alpha_q11 / 2048.0f;
    }
    const int32_t pick = rng_range(r, 0, 3), wv = pick == 0 ? 0 : pick == 1 ? 2048 : rng_range(r, 0, 2048);
    const size_t n = out_w * channels;
    int8_t *expected = malloc(n + 1);
    unsigned char *out = malloc(n + 2 * GUARD_BYTES);
    s8_ibilinear__scalar(out_w, channels, top, bottom, cols, wv, expected);
    memset(out, 0x3C, n + 2 * GUARD_BYTES);
    kernel(out_w, channels, top, bottom, cols, wv, (int8_t *)(out + GUARD_BYTES));
    const size_t at = s8_block_mismatch(out, n, 0x3C, expected);
    if (at != SIZE_MAX) {
        fprintf(stderr, "%s: ibilinear channels=%zu out_w=%zu in_w=%zu wv=%d%s\n", name, channels, out_w, in_w, wv,
                extreme ? " (extreme inputs)" : "");
        report_s8_block_mismatch(out, n, at, expected, "element");
    }
    free(out);
    free(expected);
    guard_free_all(g);
    free(g);
    return at != SIZE_MAX;
}

static int test_ibilinear(rng *r, const char *name, rl_isa isa, size_t *cases) {
    const rl_s8_ibilinear_fn kernel = rl_s8_ibilinear_for(isa);
    /* every channel count to 40 (the 8-channel steps and the 1-7 channel tails), then longer pixels */
    static const size_t longer[] = {63, 64, 65, 100, 256};
    int failures = 0;
    for (size_t i = 1; i < 41 + sizeof longer / sizeof *longer && !failures; ++i) {
        const size_t channels = i < 41 ? i : longer[i - 41];
        for (int rep = 0; rep < 6 && !failures; ++rep) {
            failures += ibilinear_case(r, name, kernel, channels, (size_t)rng_range(r, 1, 4), rep == 5);
            ++*cases;
        }
    }
    return failures;
}

/* ---- an int8 function as a 256-entry table (s8_lut_ref.c the specification) ---- */
/* n bytes through a random table, the input ending at a PROT_NONE page; in place (x == y) every fourth case. The
 * input holds every byte value when n allows, so each table chunk's edges (0, 63, 64, ..., 255) are looked up. */
static int lut_case(rng *r, const char *name, rl_s8_lut_fn kernel, size_t n, int in_place) {
    guard_set *g = calloc(1, sizeof *g);
    int8_t *table = guard_alloc(g, 256), *x = guard_alloc(g, n + 1);
    for (int i = 0; i < 256; ++i) table[i] = (int8_t)rng_range(r, -128, 127);
    for (size_t i = 0; i < n; ++i) x[i] = (int8_t)(i < 256 && n >= 256 ? (int)i - 128 : rng_range(r, -128, 127));
    int8_t *expected = malloc(n + 1);
    s8_lut_ref((int64_t)n, table, x, expected);
    unsigned char *out = malloc(n + 2 * GUARD_BYTES);
    memset(out, 0x5A, n + 2 * GUARD_BYTES);
    if (in_place) {
        memcpy(out + GUARD_BYTES, x, n);
        kernel((int64_t)n, table, (const int8_t *)(out + GUARD_BYTES), (int8_t *)(out + GUARD_BYTES));
    } else {
        kernel((int64_t)n, table, x, (int8_t *)(out + GUARD_BYTES));
    }
    const size_t at = s8_block_mismatch(out, n, 0x5A, expected);
    if (at != SIZE_MAX) {
        fprintf(stderr, "%s: lut n=%zu%s\n", name, n, in_place ? " (in place)" : "");
        if (at >= GUARD_BYTES && at < GUARD_BYTES + n)
            fprintf(stderr, "  element %zu is input %d through the table\n", at - GUARD_BYTES, x[at - GUARD_BYTES]);
        report_s8_block_mismatch(out, n, at, expected, "element");
    }
    free(out);
    free(expected);
    guard_free_all(g);
    free(g);
    return at != SIZE_MAX;
}

static int test_lut(rng *r, const char *name, rl_isa isa, size_t *cases) {
    const rl_s8_lut_fn kernel = rl_s8_lut_for(isa);
    /* every length to 70 (the 16- and 32-byte steps and the 1-15 byte tails), then long runs */
    static const size_t longer[] = {255, 256, 257, 1000, 4099};
    int failures = 0;
    for (size_t i = 0; i < 71 + sizeof longer / sizeof *longer && !failures; ++i) {
        const size_t n = i < 71 ? i : longer[i - 71];
        for (int rep = 0; rep < 4 && !failures; ++rep) {
            failures += lut_case(r, name, kernel, n, rep == 3);
            ++*cases;
        }
    }
    return failures;
}

/* ---- int8 sums over the middle axis (an int8 MEAN's over H and W; qs8_rdsum__scalar.c the specification) ---- */
/* reduced rows of `channels` bytes ending at a PROT_NONE page; extreme cases fill them with -128 or 127 throughout,
 * the sums an int16 partial sum must hold at 256 rows and must not at 257. */
static int rdsum_case(rng *r, const char *name, rl_qs8_rdsum_fn kernel, size_t reduced, size_t channels, int fill) {
    guard_set *g = calloc(1, sizeof *g);
    int8_t *x = guard_alloc(g, reduced * channels);
    for (size_t i = 0; i < reduced * channels; ++i) x[i] = (int8_t)(fill ? fill : rng_range(r, -128, 127));
    int32_t *expected = malloc((channels + 1) * sizeof *expected), *got = guard_alloc(g, channels * sizeof *got);
    qs8_rdsum__scalar(reduced, channels, x, expected);
    memset(got, 0x5A, channels * sizeof *got);
    kernel(reduced, channels, x, got);
    int failures = 0;
    for (size_t c = 0; c < channels && !failures; ++c)
        if (got[c] != expected[c]) {
            fprintf(stderr, "%s: rdsum reduced=%zu channels=%zu fill=%d: channel %zu got %d, scalar gives %d\n", name,
                    reduced, channels, fill, c, got[c], expected[c]);
            failures = 1;
        }
    free(expected);
    guard_free_all(g);
    free(g);
    return failures;
}

static int test_rdsum(rng *r, const char *name, rl_isa isa, size_t *cases) {
    const rl_qs8_rdsum_fn kernel = rl_qs8_rdsum_for(isa);
    /* every channel count to 40 (the 16- and 8-channel steps and the 1-7 tails), then wider rows; row counts
     * around the 256-row int16 sums */
    static const size_t rows[] = {1, 2, 3, 17, 255, 256, 257, 513};
    static const size_t wider[] = {64, 100, 576};
    int failures = 0;
    for (size_t i = 1; i < 41 + sizeof wider / sizeof *wider && !failures; ++i) {
        const size_t channels = i < 41 ? i : wider[i - 41];
        for (size_t k = 0; k < sizeof rows / sizeof *rows && !failures; ++k) {
            const int fills[3] = {0, -128, 127};
            for (int f = 0; f < 3 && !failures; ++f) {
                failures += rdsum_case(r, name, kernel, rows[k], channels, fills[f]);
                ++*cases;
            }
        }
    }
    return failures;
}

/* ---- which paths this CPU runs ---- */
/* ---- speed check ---- */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds cfg takes for an m x n output of depth ks * kc: GEMM when ks is 1, else IGEMM over ks taps whose rows
 * are kc bytes apart (a padded RGB input, as the driver makes when kc is not a multiple of kr), each row a tap
 * reads picked pseudo-randomly from the input. */
static double gemm_seconds(const rl_qs8_gemm_config *cfg, size_t m, size_t kc, size_t ks, size_t n, rng *r) {
    const size_t pixels = m + 64, blocks = (m + cfg->mr - 1) / cfg->mr;
    int8_t *a = malloc(pixels * kc), *c = malloc(m * n), *w = malloc(n * ks * kc);
    int32_t *bias = malloc(n * sizeof *bias);
    float *scales = malloc(n * sizeof *scales);
    const int8_t **indirection = malloc(blocks * ks * cfg->mr * sizeof *indirection);
    for (size_t i = 0; i < pixels * kc; ++i) a[i] = (int8_t)rng_range(r, -128, 127);
    for (size_t i = 0; i < n * ks * kc; ++i) w[i] = (int8_t)rng_range(r, -127, 127);
    for (size_t j = 0; j < n; ++j) bias[j] = rng_range(r, -1000, 1000), scales[j] = 1e-3f;
    for (size_t i = 0; i < blocks * ks * cfg->mr; ++i) indirection[i] = a + (size_t)rng_range(r, 0, (int32_t)m) * kc;
    void *packed = malloc(rl_qs8_gemm_packed_size(n, ks, kc, cfg->nr, cfg->kr));
    rl_pack_qs8_gemm(n, ks, kc, cfg->nr, cfg->kr, 3, cfg->input_offset, w, bias, scales, packed);
    const rl_qs8_requantization_params params = {.min_less_zero_point = -128.0f, .max_less_zero_point = 127.0f};
    double best = 0.0; /* calls per second: the best of 9 windows, steadier than one on a shared machine */
    for (int window = 0; window < 9; ++window) {
        size_t reps = 0;
        const double start = now_s();
        double elapsed;
        do {
            for (size_t b = 0; b < blocks; ++b) {
                const size_t i = b * cfg->mr, rows = m - i < cfg->mr ? m - i : cfg->mr;
                if (ks == 1) {
                    cfg->gemm(rows, n, kc, a + i * kc, kc, packed, c + i * n, n, &params);
                } else {
                    cfg->igemm(rows, n, kc, ks, indirection + b * ks * cfg->mr, packed, c + i * n, n, &params);
                }
            }
            ++reps;
        } while ((elapsed = now_s() - start) < 0.01);
        if ((double)reps / elapsed > best) best = (double)reps / elapsed;
    }
    free(a), free(c), free(w), free(bias), free(scales), free(indirection), free(packed);
    return 1.0 / best;
}

static double dwconv_gops(const rl_qs8_dwconv_config *cfg, size_t channels, size_t pixels, rng *r) {
    enum { TAPS = 9 };
    const size_t rows = pixels + 2; /* a 3-row strip of width pixels + 2: a 3x3 stride-1 window */
    int8_t *in = malloc(3 * rows * channels), *out = malloc(pixels * channels), *w = malloc(TAPS * channels);
    int32_t *bias = malloc(channels * sizeof *bias);
    float *scales = malloc(channels * sizeof *scales);
    for (size_t i = 0; i < 3 * rows * channels; ++i) in[i] = (int8_t)rng_range(r, -128, 127);
    for (size_t i = 0; i < TAPS * channels; ++i) w[i] = (int8_t)rng_range(r, -127, 127);
    for (size_t j = 0; j < channels; ++j) bias[j] = rng_range(r, -1000, 1000), scales[j] = 1e-3f;
    const int8_t **indirection = malloc(pixels * TAPS * sizeof *indirection);
    for (size_t px = 0; px < pixels; ++px) {
        for (size_t t = 0; t < TAPS; ++t) indirection[px * TAPS + t] = in + ((t / 3) * rows + px + t % 3) * channels;
    }
    void *packed = malloc(rl_qs8_dwconv_packed_size(channels, cfg->channel_tile));
    rl_pack_qs8_dwconv(channels, TAPS, cfg->channel_tile, 3, w, bias, scales, packed);
    const int8_t *weights[TAPS];
    rl_qs8_dwconv_weight_taps(channels, TAPS, 1, w, weights);
    const rl_qs8_requantization_params params = {.min_less_zero_point = -128.0f, .max_less_zero_point = 127.0f};
    double best = 0.0;
    for (int window = 0; window < 5; ++window) {
        size_t reps = 0;
        const double start = now_s();
        double elapsed;
        do {
            cfg->dwconv(channels, pixels, TAPS, indirection, TAPS, weights, packed, out, channels, &params);
            ++reps;
        } while ((elapsed = now_s() - start) < 0.02);
        if ((double)reps / elapsed > best) best = (double)reps / elapsed;
    }
    free(in), free(out), free(w), free(bias), free(scales), free(indirection), free(packed);
    return 2.0 * (double)(channels * pixels * TAPS) * best * 1e-9;
}

static int bench(rl_isa isa, const char *name) {
    if (!cpu_has(isa)) {
        printf("bench: this CPU lacks %s\n", name);
        return 77;
    }
    rng r = {UINT64_C(0x9E3779B97F4A7C15)};
    const rl_qs8_gemm_config scalar = rl_qs8_gemm_config_for(RL_ISA_SCALAR), fast = rl_qs8_gemm_config_for(isa);
    /* mobilenet_v2_035_96's 1x1 convolutions (M pixels, K, N) and its first layer (3x3 stride 2 over RGB: an
     * IGEMM of 9 taps of 3 channels, padded to the kernel's kr as the driver does). */
    static const size_t shapes[][4] = {{2304, 16, 1, 8},  {2304, 8, 1, 48},  {576, 48, 1, 8},   {576, 8, 1, 48},
                                       {144, 48, 1, 16},  {144, 16, 1, 96},  {144, 96, 1, 16},  {36, 16, 1, 96},
                                       {36, 96, 1, 32},   {36, 32, 1, 192},  {36, 192, 1, 32},  {9, 192, 1, 56},
                                       {9, 56, 1, 336},   {9, 336, 1, 56},   {9, 336, 1, 112},  {9, 112, 1, 1280},
                                       {2304, 3, 9, 16}};
    printf("int8 GEMM/IGEMM on mobilenet_v2_035_96's shapes (%s %ux%uc%u vs scalar %ux%uc%u)\n", name, fast.mr,
           fast.nr, fast.kr, scalar.mr, scalar.nr, scalar.kr);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        const size_t m = shapes[s][0], ks = shapes[s][2], n = shapes[s][3];
        const size_t kc_base = ks == 1 ? shapes[s][1] : (shapes[s][1] + scalar.kr - 1) / scalar.kr * scalar.kr;
        const size_t kc_fast = ks == 1 ? shapes[s][1] : (shapes[s][1] + fast.kr - 1) / fast.kr * fast.kr;
        const double giga_ops = 2.0 * (double)(m * shapes[s][1] * ks * n) * 1e-9; /* unpadded */
        const double base = giga_ops / gemm_seconds(&scalar, m, kc_base, ks, n, &r);
        const double gops = giga_ops / gemm_seconds(&fast, m, kc_fast, ks, n, &r);
        printf("  %-5s M=%4zu K=%3zu%s N=%4zu  scalar %6.2f GOP/s  %s %7.2f GOP/s  x%.1f\n", ks == 1 ? "gemm" : "igemm",
               m, shapes[s][1], ks == 1 ? "   " : "x9 ", n, base, name, gops, gops / base);
    }
    const rl_qs8_dwconv_config dscalar = rl_qs8_dwconv_config_for(RL_ISA_SCALAR), dfast = rl_qs8_dwconv_config_for(isa);
    /* mobilenet_v2_035_96's depthwise layers: channels, and output pixels per row (one call each). */
    static const size_t dw_shapes[][2] = {{16, 48}, {48, 24}, {48, 12}, {96, 12}, {96, 6},
                                          {144, 6}, {192, 6}, {192, 3}, {336, 3}};
    printf("int8 depthwise 3x3, one output row per call (%s %uc vs scalar %uc)\n", name, dfast.channel_tile,
           dscalar.channel_tile);
    for (size_t s = 0; s < sizeof dw_shapes / sizeof *dw_shapes; ++s) {
        const size_t channels = dw_shapes[s][0], pixels = dw_shapes[s][1];
        const double base = dwconv_gops(&dscalar, channels, pixels, &r);
        const double gops = dwconv_gops(&dfast, channels, pixels, &r);
        printf("  C=%3zu pixels=%2zu  scalar %6.2f GOP/s  %s %7.2f GOP/s  x%.1f\n", channels, pixels, base, name,
               gops, gops / base);
    }
    return 0;
}

/* rl_pack_qs8_gemm against gemm.h's layout written out byte by byte (the packer transposes 8-byte words of
 * whole panels and sums them in 16-bit lanes where it can): every nr and kr of the configs (kr 16: aarch64's
 * 2x8c16), n around the panel and narrow-panel edges, kc around kr and the 8-byte words, and rows past the
 * lanes' 1024 bytes between gatherings (kc 1032, 2050), weights of -128 and 127 among them. */
static int test_gemm_pack(rng *r, size_t *cases, const rl_qs8_gemm_config *path) {
    static const size_t nrs[] = {4, 8, 16}, krs[] = {1, 2, 4, 8, 16};
    for (size_t a = 0; a < sizeof nrs / sizeof *nrs; ++a)
        for (size_t b = 0; b < sizeof krs / sizeof *krs; ++b)
            for (size_t n = 1; n <= 41; n += n < 18 ? 1 : 7)
                for (size_t ks = 1; ks <= 3; ks += 2)
                    for (size_t kc = 1; kc <= 2050;
                         kc = kc < 18 ? kc + 1 : kc < 36 ? kc + 9 : kc < 1032 ? 1032 : kc + 1018) {
                        if (kc > 36 && (ks > 1 || n > 17)) continue;
                        const size_t nr = nrs[a], kr = krs[b], kcr = (kc + kr - 1) / kr * kr;
                        const size_t bytes = rl_qs8_gemm_packed_size(n, ks, kc, nr, kr);
                        int8_t *w = malloc(n * ks * kc);
                        int32_t *bias = malloc(n * sizeof *bias);
                        float *scales = malloc(n * sizeof *scales);
                        unsigned char *got = malloc(bytes), *want = calloc(bytes, 1);
                        for (size_t i = 0; i < n * ks * kc; ++i) w[i] = (int8_t)rng_range(r, -128, 127);
                        for (size_t j = 0; j < n; ++j) bias[j] = rng_range(r, -100000, 100000), scales[j] = (float)j + 0.5f;
                        memset(got, 0xA5, bytes);
                        rl_pack_qs8_gemm(n, ks, kc, nr, kr, 7, 0, w, bias, scales, got);
                        unsigned char *out = want;
                        for (size_t n0 = 0; n0 < n; n0 += nr) {
                            const size_t width = rl_qs8_gemm_panel_width(n, n0, nr);
                            for (size_t j = 0; j < width; ++j, out += 4) {
                                uint32_t sum = 0, folded = 0;
                                if (n0 + j < n) {
                                    for (size_t k = 0; k < ks * kc; ++k) sum += (uint32_t)(int32_t)w[(n0 + j) * ks * kc + k];
                                    folded = (uint32_t)bias[n0 + j] - 7u * sum;
                                }
                                memcpy(out, &folded, 4);
                            }
                            for (size_t p = 0; p < ks; ++p)
                                for (size_t k0 = 0; k0 < kcr; k0 += kr)
                                    for (size_t j = 0; j < width; ++j)
                                        for (size_t q = 0; q < kr; ++q, ++out)
                                            *out = n0 + j < n && k0 + q < kc
                                                       ? (unsigned char)w[((n0 + j) * ks + p) * kc + k0 + q] : 0;
                            for (size_t j = 0; j < width; ++j, out += 4) {
                                const float scale = n0 + j < n ? scales[n0 + j] : 0.0f;
                                memcpy(out, &scale, 4);
                            }
                        }
                        int same = (size_t)(out - want) == bytes && memcmp(got, want, bytes) == 0;
                        if (same && path->packw_panel && path->nr == nr && path->kr == kr) { /* its vector packer */
                            const rl_qs8_gemm_config with_zero_offset = {.nr = nr, .kr = kr,
                                                                         .packw_panel = path->packw_panel};
                            memset(got, 0xA5, bytes);
                            rl_pack_qs8_gemm_for(&with_zero_offset, n, ks, kc, 7, w, bias, scales, got);
                            same = memcmp(got, want, bytes) == 0;
                        }
                        free(w), free(bias), free(scales), free(got), free(want);
                        if (!same) {
                            fprintf(stderr, "rl_pack_qs8_gemm n %zu ks %zu kc %zu nr %zu kr %zu: bytes differ from the layout\n",
                                    n, ks, kc, nr, kr);
                            return 1;
                        }
                        ++*cases;
                    }
    return 0;
}

static int run(rl_isa isa, const char *name) {
    rng r = {UINT64_C(0x243F6A8885A308D3) ^ (uint64_t)isa};
    const gemm_path scalar = {"scalar", rl_qs8_gemm_config_for(RL_ISA_SCALAR), 0};
    const gemm_path path = {name, rl_qs8_gemm_config_for(isa), 0};
    const dwconv_path dscalar = {"scalar", rl_qs8_dwconv_config_for(RL_ISA_SCALAR), 0};
    const dwconv_path dpath = {name, rl_qs8_dwconv_config_for(isa), 0};
    const int same_gemm = path.config.gemm == scalar.config.gemm && isa != RL_ISA_SCALAR;
    const int same_dwconv = dpath.config.dwconv == dscalar.config.dwconv && isa != RL_ISA_SCALAR;
    size_t gemm_cases = 0, dwconv_cases = 0;
    int failures = test_gemm(&r, isa == RL_ISA_SCALAR || same_gemm ? &scalar : &path, &scalar, &gemm_cases);
    if (!failures) failures = test_dwconv(&r, isa == RL_ISA_SCALAR || same_dwconv ? &dscalar : &dpath, &dscalar,
                                          &dwconv_cases);
    /* The kernel for layers of few channels (rl_dwconv_wants_small), where the path has one of its own. */
    const dwconv_path dsmall = {name, rl_qs8_dwconv_small_config_for(isa), 0};
    size_t small_cases = 0;
    if (!failures && dsmall.config.dwconv != dpath.config.dwconv && isa != RL_ISA_SCALAR)
        failures = test_dwconv(&r, &dsmall, &dscalar, &small_cases);
    /* The kernel for filters without -128, where the path has one; its weights are drawn without -128 (the
     * scalar kernel sees the same filter). */
    size_t pairs_cases = 0;
    if (!failures && dpath.config.dwconv_pairs && isa != RL_ISA_SCALAR) {
        dwconv_path dpairs = {name, dpath.config, 1};
        dpairs.config.dwconv = dpath.config.dwconv_pairs;
        failures = test_dwconv(&r, &dpairs, &dscalar, &pairs_cases);
        if (!failures) printf("%s: dwconv_pairs %uc: %zu cases, bit-exact with the scalar kernel\n", name,
                              dpairs.config.channel_tile, pairs_cases);
    }
    /* The tile for filters without -128, where the path has one (its own packing: kr 16 on aarch64 NEON). */
    const gemm_path pairs = {name, rl_qs8_gemm_pairs_config_for(isa), 1};
    size_t gemm_pairs_cases = 0;
    if (!failures && pairs.config.gemm && isa != RL_ISA_SCALAR) {
        failures = test_gemm(&r, &pairs, &scalar, &gemm_pairs_cases);
        if (!failures) printf("%s: gemm/igemm pairs %ux%uc%u: %zu cases, bit-exact with the scalar kernel and the formula\n",
                              name, pairs.config.mr, pairs.config.nr, pairs.config.kr, gemm_pairs_cases);
    }
    size_t vbinary_cases = 0, pool_cases = 0;
    if (!failures) failures = test_vbinary(&r, name, isa, &vbinary_cases);
    if (!failures) failures = test_pool(&r, name, isa, &pool_cases);
    size_t ibilinear_cases = 0;
    if (!failures) failures = test_ibilinear(&r, name, isa, &ibilinear_cases);
    size_t lut_cases = 0;
    if (!failures) failures = test_lut(&r, name, isa, &lut_cases);
    size_t rdsum_cases = 0;
    if (!failures) failures = test_rdsum(&r, name, isa, &rdsum_cases);
    size_t pack_cases = 0;
    if (!failures) failures = test_gemm_pack(&r, &pack_cases, &path.config);
    if (failures) return 1;
    printf("%s: gemm packing: %zu cases, as gemm.h's layout; gemm/igemm %ux%uc%u (input_offset %d): %zu cases; dwconv %uc: %zu cases, small %uc: %zu cases; "
           "bit-exact with the scalar kernels and the formula; vadd/vaddc/vmul/vmulc: %zu cases, max/avg pool: %zu "
           "cases, bit-exact with the scalar kernels; ibilinear: %zu cases, lut: %zu cases, rdsum: %zu cases, "
           "bit-exact with the scalar kernels\n",
           name, pack_cases, path.config.mr, path.config.nr, path.config.kr, path.config.input_offset, gemm_cases,
           dpath.config.channel_tile, dwconv_cases, dsmall.config.channel_tile, small_cases, vbinary_cases,
           pool_cases, ibilinear_cases, lut_cases, rdsum_cases);
    return 0;
}

int main(int argc, char **argv) {
    rl_isa isa;
    if (argc >= 2 && strcmp(argv[1], "bench") == 0) {
        const char *name = argc >= 3 ? argv[2] : "avx2";
        if (!parse_isa(name, &isa)) {
            fprintf(stderr, "unknown path %s\n", name);
            return 2;
        }
        return bench(isa, name);
    }
    return kernel_tester_main(argc, argv, (kernel_tester){run, NULL});
}
