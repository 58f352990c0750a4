/* f32_vbinary_test.c — checks one ISA's float32 element-wise binary and LEAKY_RELU micro-kernels (kernels.h's
 * rl_f32_vbinary_config), bit for bit.
 *
 * Usage: f32_vbinary_test scalar|avx2|avx512|neon|neondot. The scalar kernels are checked against the whole-op
 * references they specify (f32_binary_ref on a broadcast of the same form, f32_leaky_relu_ref); an ISA's
 * kernels against the scalar kernels: every op, every clamp, n = 0..70 and a few longer runs (around the 4-,
 * 8- and 16-element steps), 1..33 channels for the per-channel form, the one value on either side, in place,
 * and operands holding NaN, -0.0, +-inf and the largest floats. A NaN must give a NaN (which one, when both
 * operands are, is the hardware's); every other result the same bits. Inputs end at a PROT_NONE page, so a read
 * past n faults; outputs are followed by canaries that must stay untouched. Subnormals are left out: armv7's
 * NEON flushes them (kernels.h). Exit status 0: all passed; 1: a mismatch (printed); 77: the CPU lacks the ISA. */
#include "kernel_tester.h" /* first: it sets _DEFAULT_SOURCE before any system header */

#include <float.h>
#include <math.h>

#include "kernels.h"

#define CANARY 12345.678f
#define MAX_N 300
#define MAX_CHANNELS 33
#define MAX_ROWS 5

/* Mostly values in [-2, 2), one in eight a special one. */
static float value(rng *r) {
    static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, FLT_MAX, -FLT_MAX, 0.5f};
    const uint32_t u = rng_next(r);
    if (u % 8 == 0) return special[(u >> 8) % (sizeof special / sizeof special[0])];
    return (float)((double)(u >> 8) / (double)(1 << 22) - 2.0);
}

/* `count` random floats ending exactly where slot i's readable page ends. */
static float *slot_values(const guarded *g, size_t i, size_t count, rng *r) {
    float *x = slot_tail(g, i, count);
    for (size_t k = 0; k < count; ++k) x[k] = value(r);
    return x;
}

static int same_float(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0; }

/* n results against the expected ones, then the canary after them. */
static int check(const float *got, const float *want, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!same_float(got[i], want[i])) {
            uint32_t got_bits, want_bits;
            memcpy(&got_bits, &got[i], sizeof got_bits);
            memcpy(&want_bits, &want[i], sizeof want_bits);
            printf("FAIL %s: element %zu got %.9g (0x%08x) want %.9g (0x%08x)\n", running, i, (double)got[i],
                   (unsigned)got_bits, (double)want[i], (unsigned)want_bits);
            return 1;
        }
    if (memcmp(&got[n], &(float){CANARY}, sizeof(float)) != 0) {
        printf("FAIL %s: wrote past the output (element %zu)\n", running, n);
        return 1;
    }
    return 0;
}

static const rl_f32_minmax_params clamps[] = {{-INFINITY, INFINITY}, {0.0f, 6.0f}, {-0.25f, 0.5f}, {-1.0f, 1.0f}};
#define CLAMPS (sizeof clamps / sizeof clamps[0])
static const char *const op_names[] = {"ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE", "MAXIMUM", "MINIMUM",
                                       "PRELU"};
#define OPS 8

/* The reference's broadcast for rows x channels outputs: a full (strides [channels, 1]) against b, which is
 * full too (b_kind 0), one value (1), or a vector of channels (2); swapped exchanges a and b. */
static rl_broadcast broadcast_of(size_t rows, size_t channels, int b_kind, int swapped, rl_f32_minmax_params p) {
    rl_broadcast bc;
    memset(&bc, 0, sizeof bc);
    for (int d = 0; d < 8; ++d) bc.out_dims[d] = 1;
    bc.out_dims[6] = (int64_t)rows;
    bc.out_dims[7] = (int64_t)channels;
    bc.count = (int64_t)(rows * channels);
    int64_t *full = swapped ? bc.b_strides : bc.a_strides, *other = swapped ? bc.a_strides : bc.b_strides;
    full[6] = (int64_t)channels;
    full[7] = 1;
    if (b_kind == 0) other[6] = (int64_t)channels;
    if (b_kind != 1) other[7] = 1;
    bc.contiguous = b_kind == 0 ? 1 : (b_kind == 1 ? (swapped ? 3 : 2) : 0);
    bc.act_min = p.min;
    bc.act_max = p.max;
    return bc;
}

static int test_binary(const rl_f32_vbinary_config *k, const rl_f32_vbinary_config *ref, rng *r) {
    static float out[MAX_N + 1], want[MAX_N + 1], inplace[MAX_N + 1];
    static const size_t long_runs[] = {100, 127, 128, 129, 255, 256, 257, MAX_N};
    guarded g = guarded_new(2, 1);
    int failed = 0;
    for (int op = 0; op < OPS && !failed; ++op) {
        for (size_t c = 0; c < CLAMPS && !failed; ++c) {
            const rl_f32_minmax_params p = clamps[c];
            for (size_t t = 0; t < 71 + sizeof long_runs / sizeof long_runs[0] && !failed; ++t) {
                const size_t n = t < 71 ? t : long_runs[t - 71];
                const float *a = slot_values(&g, 0, n, r), *b = slot_values(&g, 1, n, r);
                /* full operands */
                snprintf(running, sizeof running, "vbinary %s clamp %zu n %zu", op_names[op], c, n);
                if (ref) {
                    ref->vbinary((rl_binary_op)op, n, a, b, want, &p);
                } else {
                    const rl_broadcast bc = broadcast_of(1, n, 0, 0, p);
                    f32_binary_ref((rl_binary_op)op, &bc, a, b, want);
                }
                out[n] = CANARY;
                k->vbinary((rl_binary_op)op, n, a, b, out, &p);
                failed |= check(out, want, n);
                memcpy(inplace, a, n * sizeof(float));
                inplace[n] = CANARY;
                snprintf(running, sizeof running, "vbinary %s clamp %zu n %zu in place", op_names[op], c, n);
                k->vbinary((rl_binary_op)op, n, inplace, b, inplace, &p);
                failed |= check(inplace, want, n);
                /* one value, either side */
                for (int reversed = 0; reversed < 2 && !failed; ++reversed) {
                    snprintf(running, sizeof running, "vbinaryc %s clamp %zu n %zu reversed %d", op_names[op], c, n,
                             reversed);
                    const float *v = slot_values(&g, 1, 1, r);
                    if (ref) {
                        ref->vbinaryc((rl_binary_op)op, reversed, n, a, v, want, &p);
                    } else {
                        const rl_broadcast bc = broadcast_of(1, n, 1, reversed, p);
                        f32_binary_ref((rl_binary_op)op, &bc, reversed ? v : a, reversed ? a : v, want);
                    }
                    out[n] = CANARY;
                    k->vbinaryc((rl_binary_op)op, reversed, n, a, v, out, &p);
                    failed |= check(out, want, n);
                    memcpy(inplace, a, n * sizeof(float));
                    inplace[n] = CANARY;
                    k->vbinaryc((rl_binary_op)op, reversed, n, inplace, v, inplace, &p);
                    failed |= check(inplace, want, n);
                }
            }
        }
    }
    guarded_free(&g);
    printf("vbinary, vbinaryc: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

static int test_rows(const rl_f32_vbinary_config *k, const rl_f32_vbinary_config *ref, rng *r) {
    static float out[MAX_ROWS * MAX_CHANNELS + 1], want[MAX_ROWS * MAX_CHANNELS + 1];
    static float inplace[MAX_ROWS * MAX_CHANNELS + 1];
    guarded g = guarded_new(2, 1);
    int failed = 0;
    for (int op = 0; op < OPS && !failed; ++op) {
        for (size_t c = 0; c < CLAMPS && !failed; ++c) {
            const rl_f32_minmax_params p = clamps[c];
            for (size_t channels = 1; channels <= MAX_CHANNELS && !failed; ++channels) {
                for (size_t rows = 0; rows <= MAX_ROWS && !failed; ++rows) {
                    for (int reversed = 0; reversed < 2 && !failed; ++reversed) {
                        const size_t n = rows * channels;
                        const float *x = slot_values(&g, 0, n, r), *v = slot_values(&g, 1, channels, r);
                        snprintf(running, sizeof running, "vbinary_rows %s clamp %zu %zu rows of %zu reversed %d",
                                 op_names[op], c, rows, channels, reversed);
                        if (ref) {
                            ref->vbinary_rows((rl_binary_op)op, reversed, rows, channels, x, v, want, &p);
                        } else {
                            const rl_broadcast bc = broadcast_of(rows, channels, 2, reversed, p);
                            f32_binary_ref((rl_binary_op)op, &bc, reversed ? v : x, reversed ? x : v, want);
                        }
                        out[n] = CANARY;
                        k->vbinary_rows((rl_binary_op)op, reversed, rows, channels, x, v, out, &p);
                        failed |= check(out, want, n);
                        memcpy(inplace, x, n * sizeof(float));
                        inplace[n] = CANARY;
                        k->vbinary_rows((rl_binary_op)op, reversed, rows, channels, inplace, v, inplace, &p);
                        failed |= check(inplace, want, n);
                    }
                }
            }
        }
    }
    guarded_free(&g);
    printf("vbinary_rows: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

static int test_lrelu(rl_f32_vlrelu_fn k, rl_f32_vlrelu_fn ref, rng *r) {
    static float out[MAX_N + 1], want[MAX_N + 1], inplace[MAX_N + 1];
    static const float alphas[] = {0.2f, -0.5f, 0.0f, 3.0f, INFINITY, NAN};
    guarded g = guarded_new(1, 1);
    int failed = 0;
    for (size_t j = 0; j < sizeof alphas / sizeof alphas[0] && !failed; ++j) {
        for (size_t n = 0; n <= MAX_N && !failed; n += n < 70 ? 1 : 37) {
            const float *x = slot_values(&g, 0, n, r);
            snprintf(running, sizeof running, "vlrelu alpha %g n %zu", (double)alphas[j], n);
            if (ref) ref(n, alphas[j], x, want);
            else f32_leaky_relu_ref((int64_t)n, alphas[j], x, want);
            out[n] = CANARY;
            k(n, alphas[j], x, out);
            failed |= check(out, want, n);
            memcpy(inplace, x, n * sizeof(float));
            inplace[n] = CANARY;
            k(n, alphas[j], inplace, inplace);
            failed |= check(inplace, want, n);
        }
    }
    guarded_free(&g);
    printf("vlrelu: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

/* The edge cases by value, on the path's kernels: the reference's choices for NaN, signed zeros and the clamp. */
static int test_special_values(const rl_f32_vbinary_config *k) {
    const rl_f32_minmax_params none = {-INFINITY, INFINITY}, relu = {0.0f, INFINITY};
    float out[1];
    int failed = 0;
#define EXPECT(call, want)                                                                                       \
    do {                                                                                                         \
        call;                                                                                                    \
        if (!same_float(out[0], want)) {                                                                         \
            printf("FAIL %s: got %g want %g\n", #call, (double)out[0], (double)(want));                          \
            failed = 1;                                                                                          \
        }                                                                                                        \
    } while (0)
    const float nan = NAN, zero = 0.0f, neg_zero = -0.0f, two = 2.0f, half = 0.5f, neg = -3.0f;
    EXPECT(k->vbinary(RL_BIN_MAXIMUM, 1, &nan, &two, out, &none), nan);           /* x NaN: x < y false: x */
    EXPECT(k->vbinary(RL_BIN_MAXIMUM, 1, &two, &nan, out, &none), two);           /* y NaN: kept as x */
    EXPECT(k->vbinary(RL_BIN_MINIMUM, 1, &two, &nan, out, &none), two);
    EXPECT(k->vbinary(RL_BIN_MAXIMUM, 1, &neg_zero, &zero, out, &none), neg_zero); /* equal: x */
    EXPECT(k->vbinary(RL_BIN_MINIMUM, 1, &zero, &neg_zero, out, &none), zero);
    EXPECT(k->vbinary(RL_BIN_PRELU, 1, &neg_zero, &two, out, &none), neg_zero);    /* -0 >= 0: x */
    EXPECT(k->vbinary(RL_BIN_PRELU, 1, &neg, &half, out, &none), -1.5f);
    EXPECT(k->vbinary(RL_BIN_DIV, 1, &two, &zero, out, &none), INFINITY);
    EXPECT(k->vbinary(RL_BIN_ADD, 1, &nan, &two, out, &relu), nan);                /* NaN passes the clamp */
    EXPECT(k->vbinaryc(RL_BIN_SUB, 1, 1, &two, &half, out, &none), -1.5f);         /* reversed: 0.5 - 2 */
    EXPECT(k->vbinaryc(RL_BIN_DIV, 1, 1, &two, &half, out, &none), 0.25f);
    EXPECT(k->vlrelu(1, 0.5f, &neg_zero, out), -0.0f * 0.5f);                        /* -0 > 0 false: the product */
    EXPECT(k->vlrelu(1, -1.0f, &neg_zero, out), 0.0f);
#undef EXPECT
    printf("special values: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

/* The AVX-512 path runs AVX2's kernels: AVX2 is all it needs. */
static int path_runs(rl_isa isa) { return cpu_has(isa == RL_ISA_AVX512 ? RL_ISA_AVX2 : isa); }

static int run(rl_isa isa, const char *name) {
    rng r = {0x9e3779b97f4a7c15u};
    const rl_f32_vbinary_config k = rl_f32_vbinary_config_for(isa), scalar = rl_f32_vbinary_config_for(RL_ISA_SCALAR);
    const int is_scalar = isa == RL_ISA_SCALAR;
    if (!is_scalar && k.vbinary == scalar.vbinary) { /* cpu_has said this build has the path's own kernels */
        printf("FAIL the %s path runs the scalar kernels\n", name);
        return 1;
    }
    int failed = test_special_values(&k);
    failed |= test_binary(&k, is_scalar ? NULL : &scalar, &r);
    failed |= test_rows(&k, is_scalar ? NULL : &scalar, &r);
    failed |= test_lrelu(k.vlrelu, is_scalar ? NULL : scalar.vlrelu, &r);
    const char *kernels = is_scalar ? "scalar" : (RL_HAVE_NEON_KERNELS ? "neon" : "avx2");
    printf("%s (the f32_vbinary__%s kernels): %s\n", name, kernels, failed ? "FAILED" : "all passed");
    return failed;
}

int main(int argc, char **argv) { return kernel_tester_main(argc, argv, (kernel_tester){run, path_runs}); }
