/* f32_vexp_test.c — checks one ISA's softmax, GELU and row-sum micro-kernels (f32_vexp.h).
 *
 * Usage: f32_vexp_test scalar|avx2|avx512|neon|neondot. The scalar kernels are checked against double-precision
 * truth (softmax rows, erf and tanh GELU: within 2e-6 relative, 1e-6 absolute for GELU); an ISA's kernels
 * against the scalar kernels: n = 0..70 and longer runs around the 4-, 8-, 16- and 32-value steps, in place, and
 * values holding NaN, +-inf, +-0, +-FLT_MAX and ones at GELU's seams (-3, 4.9); the long sizes also sit around
 * the AVX-512 kernels' 16- and 64-value steps. The row maximum, the scaling by 1 / sum and the row sum
 * (XNNPACK's AVX order, f32_rsum.h) must give the scalar kernel's bits (a NaN where it gives one; a zero maximum
 * either zero, as aarch64's fmaxnm takes +0 over -0), but the AVX-512 row sum, in XNNPACK's AVX-512 order, within
 * 1e-6 of the sum of |x|; the row sum of (x - c)^2 must give that path's row sum over the squares bit for bit (c = 0
 * and other values, special ones too); the exponentials and GELU within 1e-6 relative of it, NaN where it is NaN,
 * the same infinity where it is one: the x86 paths run the exponential of XNNPACK's kernel for that CPU (rr2_p5, the
 * scalar kernel's), so LiteRT's bits there, and NEON the same rr2_p5 (LiteRT's aarch64 kernel, rr1_lut64_p2, is
 * an ulp or two away); armv7 also divides differently and flushes subnormal steps (results below 1e-30 may be
 * 0). A row's sum, and the scalar kernel's, within 2e-6 of the exact
 * sum of the scalar's terms (each path adds in its XNNPACK kernel's order). Inputs end at a PROT_NONE page, so a
 * read past n faults; outputs are followed by canaries that must stay untouched. Exit status 0: all passed;
 * 1: a mismatch (printed); 77: the CPU lacks the ISA. */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c99 */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_features.h"
#include "f32_vexp.h"

#define CANARY 12345.678f
#define MAX_N 4200

typedef struct {
    uint64_t state;
} rng;

static uint32_t next(rng *r) {
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return (uint32_t)(r->state >> 32);
}

/* Values in [-span, span), one in `special_every` a special one (0: none). */
static float value(rng *r, float span, uint32_t special_every) {
    static const float special[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, -3.0f, 4.9f, -1e-30f};
    const uint32_t u = next(r);
    if (special_every && u % special_every == 0) return special[(u >> 8) % (sizeof special / sizeof special[0])];
    return (float)(((double)(u >> 8) / (double)(1 << 23) - 1.0) * span);
}

static char *guarded_base;
static size_t page;

/* Room for MAX_N floats ending exactly where a readable block ends, a PROT_NONE page after it. */
static float *guarded_end(void) {
    const size_t bytes = (MAX_N * sizeof(float) + page - 1) / page * page;
    if (!guarded_base) {
        void *m = mmap(NULL, bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            perror("mmap");
            exit(2);
        }
        guarded_base = m;
        mprotect(guarded_base + bytes, page, PROT_NONE);
    }
    return (float *)(guarded_base + bytes);
}

static char running[200];

static void report_fault(int sig) {
    (void)sig;
    static const char msg[] = "FAIL: read past the input (or a bad write) in ";
    if (write(1, msg, sizeof msg - 1) < 0 || write(1, running, strlen(running)) < 0 || write(1, "\n", 1) < 0) _exit(1);
    _exit(1);
}

/* got against want: NaN for NaN, the same infinity, else within rel of want (or abs). */
static int close_to(float got, float want, double rel, double abs) {
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got)) return got == want;
    return fabs((double)got - (double)want) <= rel * fabs((double)want) + abs;
}

static const size_t long_sizes[] = {79, 80, 81, 95, 96, 97, 111, 112, 113, 127, 128, 129, 143, 144, 145, 191, 192,
                                    193, 197, 255, 256, 257, 1000, 1500, 4099, MAX_N};

static size_t size_at(size_t i) { return i <= 70 ? i : long_sizes[i - 71]; }
#define SIZES (71 + sizeof long_sizes / sizeof long_sizes[0])

/* The scalar kernels against double-precision truth. */
static int test_scalar_truth(const rl_f32_vexp_config *k, rng *r) {
    int failed = 0;
    float x[1500], y[1500];
    for (size_t n = 1; n <= 1500 && !failed; n = n * 3 + 1) {
        for (size_t i = 0; i < n; ++i) x[i] = value(r, 30.0f, 0);
        const float beta = n % 2 ? 1.0f : 0.37f;
        const float max = k->rmax(n, x);
        const float sum = k->raddstoreexpminusmax(n, x, max, beta, y);
        double truth_sum = 0.0;
        for (size_t i = 0; i < n; ++i) truth_sum += exp((double)((x[i] - max) * beta));
        for (size_t i = 0; i < n; ++i) {
            const double want = exp((double)((x[i] - max) * beta)); /* e^ of the float argument */
            if (want > 1e-30 && fabs(y[i] - want) > 2e-6 * want) {
                printf("FAIL scalar e^((x - max) * beta) n=%zu i=%zu x=%.9g: %.9g, truth %.9g\n", n, i, x[i], y[i],
                       want);
                failed = 1;
                break;
            }
        }
        if (fabs(sum - truth_sum) > 2e-6 * truth_sum) {
            printf("FAIL scalar softmax sum n=%zu: %.9g, truth %.9g\n", n, sum, truth_sum);
            failed = 1;
        }
    }
    for (int i = -16000; i <= 16000 && !failed; ++i) {
        const float v = (float)i / 1000.0f;
        float g, gt;
        k->gelu(1, &v, &g);
        k->gelu_tanh(1, &v, &gt);
        const double d = v, want = 0.5 * d * erfc(-d / sqrt(2.0));
        const double want_tanh = 0.5 * d * (1.0 + tanh(sqrt(2.0 / M_PI) * (d + 0.044715 * d * d * d)));
        if (!close_to(g, (float)want, 2e-6, 1e-6) || !close_to(gt, (float)want_tanh, 2e-6, 1e-6)) {
            printf("FAIL scalar GELU(%.9g): %.9g (truth %.9g), tanh form %.9g (truth %.9g)\n", v, g, want, gt,
                   want_tanh);
            failed = 1;
        }
    }
    printf("scalar kernels against double precision: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

/* The AVX-512 path's row sum adds in XNNPACK's AVX-512 order (LiteRT's bits there), the others in its AVX
 * order, the scalar kernel's bits. */
static int rsum_exact = 1;

/* A row sum against the scalar kernel's: its bits (NaN for NaN), or where the orders differ, within 1e-6 of the
 * sum of |x| (any order gives NaN for a NaN or inf - inf and the infinity for one infinity; a row whose |x| sum
 * overflows may round to inf in one order only, so it is not compared). */
static int rsum_matches(float got, float want, size_t n, const float *x) {
    if (memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want))) return 1;
    if (rsum_exact) return 0;
    double magnitude = 0.0;
    for (size_t i = 0; i < n; ++i) magnitude += fabs((double)x[i]);
    if (isnan(magnitude) || magnitude > FLT_MAX) return 1;
    return fabs((double)got - (double)want) <= 1e-6 * magnitude;
}

/* One path's kernels against the scalar ones on every size, 1 in `special` values special (0: none). */
static int test_against_scalar(const rl_f32_vexp_config *k, const rl_f32_vexp_config *s, rng *r, float span,
                               uint32_t special, const char *what) {
    static float want[MAX_N], got[MAX_N + 4];
    float *const end = guarded_end();
    int failed = 0;
    for (size_t si = 0; si < SIZES && !failed; ++si) {
        const size_t n = size_at(si);
        float *x = end - n;
        for (size_t i = 0; i < n; ++i) x[i] = value(r, span, special);
        for (size_t i = 0; i < 4; ++i) got[n + i] = CANARY;
        snprintf(running, sizeof running, "rsum n=%zu (%s)", n, what);
        const float total = k->rsum(n, x), total_want = s->rsum(n, x);
        if (!rsum_matches(total, total_want, n, x)) {
            printf("FAIL rsum n=%zu (%s): %.9g, scalar %.9g\n", n, what, total, total_want);
            failed = 1;
        }
        /* the sum of squares: this path's rsum over the row of (x - c)^2 as the two ops write it, bit for bit, at
         * c = 0 (MUL(x, x)) and a row's mean-like value (SQUARED_DIFFERENCE); and so within rsum's bounds of the
         * scalar's */
        for (int pass = 0; pass < 2 && !failed; ++pass) {
            static float squares[MAX_N];
            const float c = pass == 0 ? 0.0f : value(r, span, special);
            for (size_t i = 0; i < n; ++i) {
                const float d = x[i] - c;
                squares[i] = d * d;
            }
            snprintf(running, sizeof running, "rsumsqdiff n=%zu c=%.9g (%s)", n, c, what);
            const float sq = k->rsumsqdiff(n, x, c), sq_rsum = k->rsum(n, squares), sq_want = s->rsumsqdiff(n, x, c);
            if ((memcmp(&sq, &sq_rsum, sizeof sq) != 0 && !(isnan(sq) && isnan(sq_rsum))) ||
                !rsum_matches(sq, sq_want, n, squares)) {
                printf("FAIL rsumsqdiff n=%zu c=%.9g (%s): %.9g, rsum of the squares %.9g, scalar %.9g\n", n, c, what,
                       sq, sq_rsum, sq_want);
                failed = 1;
            }
        }
        if (n > 0) {
            snprintf(running, sizeof running, "rmax n=%zu (%s)", n, what);
            const float m = k->rmax(n, x), m_want = s->rmax(n, x);
            if (memcmp(&m, &m_want, sizeof m) != 0 && !(isnan(m) && isnan(m_want)) && !(m == 0.0f && m_want == 0.0f)) {
                printf("FAIL rmax n=%zu (%s): %.9g, scalar %.9g\n", n, what, m, m_want);
                failed = 1;
            }
            const float beta = si % 3 == 0 ? 0.5f : 1.0f;
            snprintf(running, sizeof running, "raddstoreexpminusmax n=%zu (%s)", n, what);
            const float sum = k->raddstoreexpminusmax(n, x, m_want, beta, got);
            const float sum_want = s->raddstoreexpminusmax(n, x, m_want, beta, want);
            for (size_t i = 0; i < n && !failed; ++i)
                if (!close_to(got[i], want[i], 1e-6, 1e-30)) {
                    printf("FAIL e^((x - max) * beta) n=%zu i=%zu x=%.9g max=%.9g (%s): %.9g, scalar %.9g\n", n, i,
                           x[i], m_want, what, got[i], want[i]);
                    failed = 1;
                }
            /* each within 2e-6 of the exact sum of the scalar's terms: a float sum of thousands of terms in
             * order (the scalar's) or in lanes (the SIMD kernels') rounds differently */
            double exact = 0.0;
            for (size_t i = 0; i < n; ++i) exact += want[i];
            if (!close_to(sum, (float)exact, 2e-6, 1e-30) || !close_to(sum_want, (float)exact, 2e-6, 1e-30)) {
                printf("FAIL softmax sum n=%zu (%s): %.9g, scalar %.9g, exact %.9g\n", n, what, sum, sum_want, exact);
                failed = 1;
            }
        }
        if (n > 0 && !failed) {
            snprintf(running, sizeof running, "vscale n=%zu (%s)", n, what);
            const float s_value = 1.0f / 3.0f;
            k->vscale(n, x, s_value, got);
            s->vscale(n, x, s_value, want);
            for (size_t i = 0; i < n && !failed; ++i)
                if (memcmp(&got[i], &want[i], sizeof got[i]) != 0 && !(isnan(got[i]) && isnan(want[i]))) {
                    printf("FAIL vscale n=%zu i=%zu x=%.9g (%s): %.9g, scalar %.9g\n", n, i, x[i], what, got[i],
                           want[i]);
                    failed = 1;
                }
        }
        for (int tanh_form = 0; tanh_form < 2 && !failed; ++tanh_form) {
            const rl_f32_vgelu_fn f = tanh_form ? k->gelu_tanh : k->gelu, g = tanh_form ? s->gelu_tanh : s->gelu;
            snprintf(running, sizeof running, "gelu%s n=%zu (%s)", tanh_form ? "_tanh" : "", n, what);
            f(n, x, got);
            g(n, x, want);
            for (size_t i = 0; i < n && !failed; ++i)
                if (!close_to(got[i], want[i], 1e-6, 1e-30)) {
                    printf("FAIL gelu%s n=%zu i=%zu x=%.9g (%s): %.9g, scalar %.9g\n", tanh_form ? "_tanh" : "", n, i,
                           x[i], what, got[i], want[i]);
                    failed = 1;
                }
        }
        for (size_t i = 0; i < 4 && !failed; ++i)
            if (got[n + i] != CANARY) {
                printf("FAIL a kernel wrote past n=%zu (%s)\n", n, what);
                failed = 1;
            }
        /* in place: y = x, on a copy of the values */
        if (n > 0 && !failed) {
            memcpy(got, x, n * sizeof(float));
            k->gelu(n, got, got);
            s->gelu(n, x, want);
            for (size_t i = 0; i < n && !failed; ++i)
                if (!close_to(got[i], want[i], 1e-6, 1e-30)) {
                    printf("FAIL gelu in place n=%zu i=%zu (%s)\n", n, i, what);
                    failed = 1;
                }
            memcpy(got, x, n * sizeof(float));
            const float m = s->rmax(n, x);
            k->raddstoreexpminusmax(n, got, m, 1.0f, got);
            k->vscale(n, got, 0.25f, got);
            s->raddstoreexpminusmax(n, x, m, 1.0f, want);
            s->vscale(n, want, 0.25f, want);
            for (size_t i = 0; i < n && !failed; ++i)
                if (!close_to(got[i], want[i], 1e-6, 1e-30)) {
                    printf("FAIL e^(x - max) / 4 in place n=%zu i=%zu (%s)\n", n, i, what);
                    failed = 1;
                }
        }
    }
    printf("against the scalar kernels, %s: %s\n", what, failed ? "FAILED" : "ok");
    return failed;
}

/* The special values by value, on the path's kernels. */
static int test_special_values(const rl_f32_vexp_config *k) {
    int failed = 0;
    const float row[5] = {1.0f, -INFINITY, 3.0f, NAN, 2.0f};
    float y[5];
    if (k->rmax(5, row) != 3.0f) failed = 1, printf("FAIL rmax skips a NaN after the first value\n");
    if (!isnan(k->rmax(2, (const float[]){NAN, 1.0f}))) failed = 1, printf("FAIL rmax of a row starting with NaN\n");
    /* a row starting with NaN on every step of the kernels (16, 4 and one value a step), the rest skipped NaNs,
     * zeros of both signs and values below them */
    float zeros[37];
    for (size_t i = 0; i < 37; ++i) zeros[i] = i % 3 == 0 ? -0.0f : i % 3 == 1 ? NAN : -1.0f;
    zeros[0] = NAN;
    if (!isnan(k->rmax(37, zeros))) failed = 1, printf("FAIL rmax of a long row starting with NaN\n");
    zeros[0] = -2.0f;
    if (k->rmax(37, zeros) != 0.0f) failed = 1, printf("FAIL rmax of a row whose maximum is a zero\n");
    const float finite[3] = {1.0f, -INFINITY, 3.0f};
    const float sum = k->raddstoreexpminusmax(3, finite, 3.0f, 1.0f, y);
    if (y[1] != 0.0f || y[2] != 1.0f || !(fabsf(sum - (1.0f + expf(-2.0f))) < 1e-6f))
        failed = 1, printf("FAIL e^(x - max) of -inf and of the max: %g %g, sum %g\n", y[1], y[2], sum);
    const float inf_row[2] = {INFINITY, 1.0f};
    if (!isnan(k->raddstoreexpminusmax(2, inf_row, INFINITY, 1.0f, y))) failed = 1, printf("FAIL a row holding +inf\n");
    const float g_in[5] = {INFINITY, NAN, 0.0f, 20.0f, -20.0f};
    k->gelu(5, g_in, y);
    if (y[0] != INFINITY || !isnan(y[1]) || y[2] != 0.0f || fabsf(y[3] - 20.0f) > 2e-5f || y[4] != 0.0f)
        failed = 1, printf("FAIL GELU of inf, NaN, 0, 20, -20: %g %g %g %g %g\n", y[0], y[1], y[2], y[3], y[4]);
    k->gelu_tanh(5, g_in, y);
    if (y[0] != INFINITY || !isnan(y[1]) || y[2] != 0.0f || y[3] != 20.0f || y[4] != 0.0f)
        failed = 1,
        printf("FAIL GELU tanh form of inf, NaN, 0, 20, -20: %g %g %g %g %g\n", y[0], y[1], y[2], y[3], y[4]);
    printf("special values: %s\n", failed ? "FAILED" : "ok");
    return failed;
}

static int cpu_has(rl_isa isa) {
#if RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return rl_isa_supported(isa); /* HWCAP, as dispatch reads it */
#endif
#if defined(__x86_64__) || defined(_M_X64)
    __builtin_cpu_init();
#ifdef RL_EMULATED_AVX512
    /* built against native/tests/avx512_emulation: the AVX-512 path needs only AVX2 */
    if (isa == RL_ISA_AVX512) return cpu_has(RL_ISA_AVX2);
#endif
    if (isa == RL_ISA_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (isa == RL_ISA_AVX512) /* its softmax row, GELU and row-sum kernels */
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && cpu_has(RL_ISA_AVX2);
#endif
    return isa == RL_ISA_SCALAR;
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        rl_isa isa;
    } names[] = {{"scalar", RL_ISA_SCALAR}, {"avx2", RL_ISA_AVX2}, {"avx512", RL_ISA_AVX512},
                 {"neon", RL_ISA_NEON}, {"neondot", RL_ISA_NEONDOT}};
    size_t which = sizeof names / sizeof names[0];
    for (size_t i = 0; argc == 2 && i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(argv[1], names[i].name) == 0) which = i;
    if (which == sizeof names / sizeof names[0]) {
        fprintf(stderr, "usage: %s scalar|avx2|avx512|neon|neondot\n", argv[0]);
        return 2;
    }
    const rl_isa isa = names[which].isa;
    if (!cpu_has(isa)) {
        printf("SKIP: this CPU lacks %s; its kernels were compiled but not run\n", names[which].name);
        return 77;
    }
    setvbuf(stdout, NULL, _IONBF, 0); /* a fault's _exit must not lose the lines already printed */
    page = (size_t)sysconf(_SC_PAGESIZE);
    signal(SIGSEGV, report_fault);
    signal(SIGBUS, report_fault);
    rng r = {0x9e3779b97f4a7c15u};
    const rl_f32_vexp_config k = rl_f32_vexp_config_for(isa), scalar = rl_f32_vexp_config_for(RL_ISA_SCALAR);
    const int is_scalar = isa == RL_ISA_SCALAR;
    if (!is_scalar && k.gelu == scalar.gelu) { /* cpu_has said this build has the path's own kernels */
        printf("FAIL the %s path runs the scalar kernels\n", names[which].name);
        return 1;
    }
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX512 && (k.rmax != f32_rmax__avx512 || k.gelu != f32_vgelu__avx512 ||
                                 k.raddstoreexpminusmax != f32_raddstoreexpminusmax__avx512 ||
                                 k.vscale != f32_vscale__avx512 || k.rsum != f32_rsum__avx512 ||
                                 k.rsumsqdiff != f32_rsumsqdiff__avx512)) {
        printf("FAIL the avx512 path does not run the AVX-512 softmax, GELU and row-sum kernels\n");
        return 1;
    }
#endif
#if defined(__x86_64__) || defined(_M_X64)
    rsum_exact = k.rsum != f32_rsum__avx512;
#endif
    int failed = test_special_values(&k);
    if (is_scalar) failed |= test_scalar_truth(&k, &r);
    failed |= test_against_scalar(&k, &scalar, &r, 6.0f, 0, "values in [-6, 6)");
    failed |= test_against_scalar(&k, &scalar, &r, 100.0f, 0, "values in [-100, 100)");
    failed |= test_against_scalar(&k, &scalar, &r, 6.0f, 16, "one in 16 special");
    const char *kernels = is_scalar            ? "scalar"
                          : RL_HAVE_NEON_KERNELS ? "neon"
                          : isa == RL_ISA_AVX512 ? "avx512"
                                                 : "avx2";
    printf("%s (the f32_vgelu__%s kernels%s): %s\n", names[which].name, kernels,
           isa == RL_ISA_AVX512 ? ", softmax rows on f32_rmax__avx512, f32_raddstoreexpminusmax__avx512 and "
                                  "f32_vscale__avx512, row sums on f32_rsum__avx512" : "",
           failed ? "FAILED" : "all passed");
    return failed ? 1 : 0;
}
