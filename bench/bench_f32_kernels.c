/* bench_f32_kernels.c — speed of the AVX2 float32 GEMM, IGEMM and depthwise kernels against scalar ones.
 * Build and run: python tests/native/test_f32_kernels.py bench
 * Prints GFLOP/s and ratios (AVX2 / scalar, and AVX2 GEMM / this core's measured FMA peak), never a pass or
 * fail: timings of one run on a shared machine are noisy. */
#define _ISOC11_SOURCE
#define _POSIX_C_SOURCE 199309L
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "f32_configs.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Peak: 12 independent ymm FMA chains (more than two pipes times the FMA latency), unrolled by hand. */
__attribute__((target("avx2,fma"))) static double fma_peak_gflops(void) {
    const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
    __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(1.0f), a2 = _mm256_set1_ps(2.0f), a3 = _mm256_set1_ps(3.0f);
    __m256 a4 = _mm256_set1_ps(4.0f), a5 = _mm256_set1_ps(5.0f), a6 = _mm256_set1_ps(6.0f), a7 = _mm256_set1_ps(7.0f);
    __m256 a8 = _mm256_set1_ps(8.0f), a9 = _mm256_set1_ps(9.0f), a10 = _mm256_set1_ps(10.0f);
    __m256 a11 = _mm256_set1_ps(11.0f);
    const long iters = 50000000;
    const double t0 = now();
    for (long n = 0; n < iters; ++n) {
        a0 = _mm256_fmadd_ps(a0, x, y), a1 = _mm256_fmadd_ps(a1, x, y), a2 = _mm256_fmadd_ps(a2, x, y);
        a3 = _mm256_fmadd_ps(a3, x, y), a4 = _mm256_fmadd_ps(a4, x, y), a5 = _mm256_fmadd_ps(a5, x, y);
        a6 = _mm256_fmadd_ps(a6, x, y), a7 = _mm256_fmadd_ps(a7, x, y), a8 = _mm256_fmadd_ps(a8, x, y);
        a9 = _mm256_fmadd_ps(a9, x, y), a10 = _mm256_fmadd_ps(a10, x, y), a11 = _mm256_fmadd_ps(a11, x, y);
    }
    const double t = now() - t0;
    const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                     _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)),
                                                   _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11))));
    if (_mm256_cvtss_f32(sum) == 12345.0f) puts(""); /* keeps the loop alive */
    return (double)iters * 12 * 16 / t * 1e-9;
}

static float *random_floats(size_t n) {
    float *x = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    for (size_t i = 0; i < n; ++i) x[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    return x;
}

/* GFLOP/s of C[m][n] = A[m][ks*kc] W^T over `reps` runs, tiled by the config as an op's driver would. */
static double gemm_gflops(const rl_f32_gemm_config *cfg, int indirect, size_t m, size_t n, size_t kc, size_t ks) {
    float *w = random_floats(n * ks * kc), *a = random_floats(m * kc), *c = malloc(m * n * sizeof(float));
    float *packed = malloc(rl_f32_gemm_packed_size(n, ks, kc, cfg->nr));
    rl_pack_f32_gemm(n, ks, kc, cfg->nr, w, NULL, packed);
    const float **ind = malloc(((m + cfg->mr) * ks) * sizeof(float *));
    for (size_t i0 = 0; i0 < m; i0 += cfg->mr)
        for (size_t p = 0; p < ks; ++p)
            for (size_t i = 0; i < cfg->mr; ++i) /* taps of a 3x3 window over neighbouring rows */
                ind[i0 * ks + p * cfg->mr + i] = a + ((i0 + i + p) % m) * kc;
    const rl_f32_minmax_params params = {-1e30f, 1e30f};
    const double flops = 2.0 * (double)m * (double)n * (double)(ks * kc);
    int reps = (int)(2e8 / flops) + 1;
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
        const double t0 = now();
        for (int r = 0; r < reps; ++r)
            for (size_t i0 = 0; i0 < m; i0 += cfg->mr) {
                const size_t mr = m - i0 < cfg->mr ? m - i0 : cfg->mr;
                if (indirect)
                    cfg->igemm(mr, n, kc, ks, ind + i0 * ks, packed, c + i0 * n, n, &params);
                else
                    cfg->gemm(mr, n, kc, a + i0 * kc, kc, packed, c + i0 * n, n, &params);
            }
        const double t = (now() - t0) / reps;
        best = t < best ? t : best;
    }
    free(w), free(a), free(c), free(packed), free(ind);
    return flops / best * 1e-9;
}

static double dwconv_gflops(const rl_f32_dwconv_config *cfg, size_t width, size_t channels, size_t taps) {
    const size_t rows = 3, in_w = width + 2;
    float *in = random_floats(rows * in_w * channels), *w = random_floats(taps * channels);
    float *out = malloc(width * channels * sizeof(float));
    float *packed = aligned_alloc(64, rl_f32_dwconv_packed_size(channels, taps, cfg->channel_tile) + 64);
    rl_pack_f32_dwconv(channels, taps, 1, cfg->channel_tile, w, NULL, packed);
    const float **ind = malloc(width * taps * sizeof(float *));
    for (size_t x = 0; x < width; ++x)
        for (size_t t = 0; t < taps; ++t) ind[x * taps + t] = in + ((t / 3) % rows * in_w + x + t % 3) * channels;
    const rl_f32_minmax_params params = {-1e30f, 1e30f};
    const double flops = 2.0 * (double)(width * channels * taps);
    int reps = (int)(1e8 / flops) + 1;
    double best = 1e30;
    for (int round = 0; round < 3; ++round) {
        const double t0 = now();
        for (int r = 0; r < reps; ++r) cfg->dwconv(channels, width, taps, ind, taps, packed, out, channels, &params);
        const double t = (now() - t0) / reps;
        best = t < best ? t : best;
    }
    free(in), free(w), free(out), free(packed), free(ind);
    return flops / best * 1e-9;
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        puts("this CPU lacks AVX2/FMA: nothing to compare");
        return 0;
    }
    const int has512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    const rl_f32_gemm_config s = rl_f32_gemm_config_for(RL_ISA_SCALAR), v = rl_f32_gemm_config_for(RL_ISA_AVX2),
                             z = rl_f32_gemm_config_for(RL_ISA_AVX512);
    const double peak = fma_peak_gflops();
    printf("one core's AVX2 FMA peak: %.1f GFLOP/s%s\n", peak, has512 ? "" : " (no AVX-512 here: that column is 0)");
    printf("%-30s %8s %8s %8s %12s %13s %13s\n", "GFLOP/s, shape (M=2304 px)", "scalar", "avx2", "avx512",
           "avx2/scalar", "avx2 of peak", "avx512/avx2");
    static const size_t shapes[][3] = {{16, 16, 1}, {32, 16, 1}, {32, 32, 1}, {48, 64, 1}, {64, 64, 1}, {96, 96, 1},
                                       {96, 24, 1}, {16, 96, 1}, {3, 32, 9}, {16, 16, 9}, {32, 32, 9}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        const size_t kc = shapes[i][0], n = shapes[i][1], ks = shapes[i][2], indirect = ks > 1;
        const double gs = gemm_gflops(&s, (int)indirect, 2304, n, kc, ks);
        const double gv = gemm_gflops(&v, (int)indirect, 2304, n, kc, ks);
        const double gz = has512 ? gemm_gflops(&z, (int)indirect, 2304, n, kc, ks) : 0.0;
        char name[64];
        snprintf(name, sizeof name, "%s K=%zux%zu N=%zu", indirect ? "igemm" : "gemm", ks, kc, n);
        printf("%-30s %8.2f %8.2f %8.2f %11.1fx %12.0f%% %12.2fx\n", name, gs, gv, gz, gv / gs, 100.0 * gv / peak,
               gz / gv);
    }
    const rl_f32_dwconv_config ds = rl_f32_dwconv_config_for(RL_ISA_SCALAR),
                               dv = rl_f32_dwconv_config_for(RL_ISA_AVX2), dz = rl_f32_dwconv_config_for(RL_ISA_AVX512);
    static const size_t dw_channels[] = {48, 96, 144, 192, 336};
    for (size_t i = 0; i < sizeof dw_channels / sizeof dw_channels[0]; ++i) {
        const double gs = dwconv_gflops(&ds, 48, dw_channels[i], 9), gv = dwconv_gflops(&dv, 48, dw_channels[i], 9);
        const double gz = has512 ? dwconv_gflops(&dz, 48, dw_channels[i], 9) : 0.0;
        char name[64];
        snprintf(name, sizeof name, "dwconv 3x3 C=%zu (48 px)", dw_channels[i]);
        printf("%-30s %8.2f %8.2f %8.2f %11.1fx %12.0f%% %12.2fx\n", name, gs, gv, gz, gv / gs, 100.0 * gv / peak,
               gz / gv);
    }
    return 0;
}
