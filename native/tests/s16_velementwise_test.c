/* s16_velementwise_test.c — the int16 element-wise kernels of s16_velementwise.h (same-shape ADD / SUB in
 * TFLite's general arithmetic, float-to-int16 QUANTIZE, the int16 table lookup) on each x86 path this CPU has, bit
 * for bit against the scalar kernels: every length from 0 to 70 (around the 8- and 16-value tiles), operands offset
 * from their buffers' start, scale sets that reach the ends of the multipliers' range, fused-activation clamps; for
 * QUANTIZE ties, NaN, infinities and values past int32 with zero points of both signs; for the lookup every int16
 * value on three tables. Built by tests/native/test_s16_velementwise_kernels.py; prints "all passed" and exits 0,
 * or names the first mismatch. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu_features.h"
#include "quant.h"
#include "s16_velementwise.h"

enum { MAX_N = 70, PAD = 3 };

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint32_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 16);
}

/* binary_int16.c's prepare of the general ADD / SUB: 0 when it takes the scales. */
static int prepare(double sa, double sb, double so, int sub, int32_t lo, int32_t hi, rl_s16_binary_params *p) {
    memset(p, 0, sizeof *p);
    p->kind = sub ? RL_S16_SUB : RL_S16_ADD;
    p->left_shift = 15;
    p->act_min = lo;
    p->act_max = hi;
    const double twice_max = 2.0 * (sa > sb ? sa : sb);
    if (rl_quantize_multiplier(sa / twice_max, &p->a_multiplier, &p->a_shift) || p->a_shift > 0) return 1;
    if (rl_quantize_multiplier(sb / twice_max, &p->b_multiplier, &p->b_shift) || p->b_shift > 0) return 1;
    return rl_quantize_multiplier(twice_max / (32768.0 * so), &p->out_multiplier, &p->out_shift) || p->out_shift > 0;
}

static int check_addsub(const char *path, rl_s16_vaddsub_fn kernel) {
    static const double sets[][3] = {{0.001, 0.0015, 0.002}, {0.002, 0.002, 0.002}, {1e-4, 0.01, 0.006},
                                     {0.01, 1e-4, 0.02},     {3e-4, 2e-4, 4.6e-4}, {1.0, 0.5, 1.0},
                                     /* input 0's multiplier 2^30 + 2^10: exact ties where input 0 is 64 times an
                                      * odd number, an output step of about one unit of the sum */
                                     {0.5 + 0x1p-21, 1.0, 0x1p-14 * (1.0 + 0x1p-10)}};
    static const int32_t clamps[][2] = {{-32768, 32767}, {0, 32767}, {0, 3000}, {-100, 100}};
    int16_t a[MAX_N + PAD], b[MAX_N + PAD], want[MAX_N + PAD], got[MAX_N + PAD];
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; ++s)
        for (size_t c = 0; c < sizeof clamps / sizeof clamps[0]; ++c)
            for (int kind = 0; kind < 3; ++kind) { /* ADD, SUB, ADD with one_rounding_blocks */
                const int sub = kind == 1;
                rl_s16_binary_params p;
                if (prepare(sets[s][0], sets[s][1], sets[s][2], sub, clamps[c][0], clamps[c][1], &p)) {
                    printf("set %zu: prepare refused its scales\n", s);
                    return 1;
                }
                p.one_rounding_blocks = kind == 2;
                for (int n = 0; n <= MAX_N; ++n) {
                    const int at = n % PAD;
                    for (int i = 0; i < MAX_N + PAD; ++i) {
                        a[i] = (int16_t)next();
                        b[i] = (int16_t)next();
                    }
                    a[at] = INT16_MIN;
                    b[at] = INT16_MAX;
                    s16_vaddsub__scalar((size_t)n, &p, a + at, b + at, want);
                    memset(got, 0x55, sizeof got);
                    kernel((size_t)n, &p, a + at, b + at, got);
                    for (int i = 0; i < n; ++i)
                        if (got[i] != want[i]) {
                            printf("%s s16_vaddsub: set %zu clamp %zu %s n=%d: element %d is %d, scalar %d\n", path,
                                   s, c, kind == 2 ? "ADD in blocks" : sub ? "SUB" : "ADD", n, i, got[i], want[i]);
                            return 1;
                        }
                    if (got[n] != 0x5555) {
                        printf("%s s16_vaddsub: n=%d wrote past the run\n", path, n);
                        return 1;
                    }
                }
            }
    return 0;
}

static int check_vcvt(const char *path, rl_f32_s16_vcvt_fn kernel) {
    static const double scales[] = {1.0, 0.5, 3.0517578125e-5, 1e-3, 7.3e-4, 0.25, 1e-6};
    static const int32_t zero_points[] = {0, -3, 17, -32768, 32767};
    float x[MAX_N + PAD];
    int16_t want[MAX_N + PAD], got[MAX_N + PAD];
    for (size_t s = 0; s < sizeof scales / sizeof scales[0]; ++s)
        for (size_t z = 0; z < sizeof zero_points / sizeof zero_points[0]; ++z)
            for (int n = 0; n <= MAX_N; ++n) {
                const int at = n % PAD;
                const float scale = (float)scales[s];
                for (int i = 0; i < MAX_N + PAD; ++i) {
                    const uint32_t r = next();
                    switch (r % 8) {
                    case 0: x[i] = ((float)(int32_t)(next() % 80001) - 40000.0f + 0.5f) * scale; break; /* ties */
                    case 1: x[i] = (r & 256) ? NAN : ((r & 512) ? INFINITY : -INFINITY); break;
                    case 2: x[i] = ((r & 256) ? 1.0f : -1.0f) * 3e9f * scale; break; /* past int32 */
                    default: x[i] = ((float)(int32_t)next() / 65536.0f) * scale;
                    }
                }
                f32_s16_vcvt__scalar((size_t)n, scales[s], zero_points[z], x + at, want);
                memset(got, 0x55, sizeof got);
                kernel((size_t)n, scales[s], zero_points[z], x + at, got);
                for (int i = 0; i < n; ++i)
                    if (got[i] != want[i]) {
                        printf("%s f32_s16_vcvt: scale %g zero point %d n=%d: element %d (%g) is %d, scalar %d\n", path,
                               scales[s], zero_points[z], n, i, (double)x[at + i], got[i], want[i]);
                        return 1;
                    }
                if (got[n] != 0x5555) {
                    printf("%s f32_s16_vcvt: n=%d wrote past the run\n", path, n);
                    return 1;
                }
            }
    return 0;
}

static int check_vlut(const char *path, rl_s16_vlut_fn kernel) {
    static int16_t lut[513], x[65536 + PAD], want[65536 + PAD], got[65536 + PAD];
    for (int t = 0; t < 3; ++t) {
        for (int i = 0; i < 513; ++i) /* a smooth table, then random, then alternating extremes */
            lut[i] = t == 0 ? (int16_t)(i * 127 - 32768) : (t == 1 ? (int16_t)next() : (i & 1 ? 32767 : -32768));
        for (int i = 0; i < 65536; ++i) x[i + 1] = (int16_t)(i - 32768); /* every value, offset by one */
        s16_vlut__scalar(65536, lut, x + 1, want);
        kernel(65536, lut, x + 1, got);
        for (int i = 0; i < 65536; ++i)
            if (got[i] != want[i]) {
                printf("%s s16_vlut: table %d value %d is %d, scalar %d\n", path, t, x[i + 1], got[i], want[i]);
                return 1;
            }
        for (int n = 0; n <= MAX_N; ++n) {
            for (int i = 0; i < MAX_N + PAD; ++i) x[i] = (int16_t)next();
            s16_vlut__scalar((size_t)n, lut, x + n % PAD, want);
            memset(got, 0x55, sizeof(int16_t) * (MAX_N + PAD));
            kernel((size_t)n, lut, x + n % PAD, got);
            for (int i = 0; i < n; ++i)
                if (got[i] != want[i]) {
                    printf("%s s16_vlut: n=%d element %d is %d, scalar %d\n", path, n, i, got[i], want[i]);
                    return 1;
                }
            if (got[n] != 0x5555) {
                printf("%s s16_vlut: n=%d wrote past the run\n", path, n);
                return 1;
            }
        }
    }
    return 0;
}

/* With no argument: the scalar path and every x86 path this CPU has. With one (scalar|avx2|neon|neondot): that
 * path's kernels against the scalar ones, exit 77 where it is not built or the CPU lacks it (the Arm testers under
 * qemu, tests/native/test_arm_kernels.py). */
int main(int argc, char **argv) {
    int failed = 0, paths = 0;
    const rl_s16_velementwise_config scalar = rl_s16_velementwise_config_for(RL_ISA_SCALAR);
    if (argc == 2) {
        rl_isa isa = RL_ISA_SCALAR;
        if (strcmp(argv[1], "avx2") == 0) isa = RL_ISA_AVX2;
        else if (strcmp(argv[1], "neon") == 0) isa = RL_ISA_NEON;
        else if (strcmp(argv[1], "neondot") == 0) isa = RL_ISA_NEONDOT;
        else if (strcmp(argv[1], "scalar") != 0) return 2;
        const rl_s16_velementwise_config cfg = rl_s16_velementwise_config_for(isa);
        if (isa != RL_ISA_SCALAR && cfg.vaddsub == scalar.vaddsub) {
            printf("%s is not built for this architecture\n", argv[1]);
            return 77;
        }
#if RL_HAVE_NEON_KERNELS
        if ((isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) && !rl_isa_supported(isa)) { /* HWCAP, as dispatch */
            printf("skipped: this CPU lacks %s\n", argv[1]);
            return 77;
        }
        if (cfg.vaddsub == s16_vaddsub__neon) printf("kernel s16_vaddsub__neon\n");
#endif
        failed = check_addsub(argv[1], cfg.vaddsub) || check_vcvt(argv[1], cfg.f32_s16_vcvt) ||
                 check_vlut(argv[1], cfg.vlut);
        if (!failed) printf("%s: all passed\n", argv[1]);
        return failed;
    }
    failed |= check_addsub("scalar", scalar.vaddsub) || check_vcvt("scalar", scalar.f32_s16_vcvt) ||
              check_vlut("scalar", scalar.vlut);
    ++paths;
#if defined(__x86_64__) || defined(_M_X64)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        const rl_s16_velementwise_config avx2 = rl_s16_velementwise_config_for(RL_ISA_AVX2);
        failed |= check_addsub("avx2", avx2.vaddsub) || check_vcvt("avx2", avx2.f32_s16_vcvt) ||
                  check_vlut("avx2", avx2.vlut);
        ++paths;
    } else {
        printf("avx2: this CPU lacks it, skipped\n");
    }
#endif
    if (failed) return 1;
    printf("%d paths, all passed\n", paths);
    return 0;
}
