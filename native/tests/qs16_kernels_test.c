/* qs16_kernels_test.c — the 16x8 IGEMM kernels (qs16_gemm.h) of one path against a plain formula (int64 sums,
 * rl_qs16_requantize) and the scalar kernel, bit for bit, on sizes around every tile edge: rows 1..MR, columns
 * around each panel, kc odd and even and past the AVX2 kernel's 128-pair flush, several taps with padding
 * rows, each rounding, inputs and weights at their extremes. Also checks no write outside the tile.
 * Usage: qs16_kernels_test scalar|avx2|neon|neondot (exit 77: the path is not built here, or this CPU lacks it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "qs16_gemm.h"

static uint32_t state = 12345u;
static uint32_t next_random(void) {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}

/* Mostly extremes (the sums' and the flush's worst case), else uniform. */
static int16_t random_input(void) {
    const uint32_t r = next_random() % 8;
    if (r == 0) return -32768;
    if (r == 1) return 32767;
    return (int16_t)(next_random() % 65536 - 32768);
}
static int8_t random_weight(void) {
    const uint32_t r = next_random() % 8;
    if (r == 0) return -128;
    if (r == 1) return 127;
    return (int8_t)(next_random() % 256 - 128);
}

/* extreme: every input -32768 and every weight -128 or 127 by column, so each sum grows by 2^22 per product
 * in one direction (past 2^31 after 512 products: int32 lanes must be flushed to int64 before that). */
static int check(const rl_qs16_gemm_config *cfg, const rl_qs16_gemm_config *ref, size_t mr, size_t n, size_t kc,
                 size_t ks, int32_t rounding, int with_bias, int extreme) {
    const size_t MR = cfg->mr;
    int16_t *rows = malloc(sizeof(int16_t) * (mr * ks * kc + 1));
    int16_t *zero = calloc(kc + 1, sizeof(int16_t));
    int8_t *w = malloc(n * ks * kc + 1);
    int64_t *bias = malloc(sizeof(int64_t) * (n + 1));
    rl_qs16_channel *channel = malloc(sizeof(rl_qs16_channel) * (n + 1));
    const int16_t **ind = malloc(sizeof(void *) * ks * MR), **ind_ref = malloc(sizeof(void *) * ks * ref->mr);
    const size_t stride = n + 3;
    int16_t *c = malloc(sizeof(int16_t) * MR * stride), *c_ref = malloc(sizeof(int16_t) * MR * stride);
    void *packed = malloc(rl_qs16_qc8w_packed_size(n, ks, kc, cfg->nr));
    void *packed_ref = malloc(rl_qs16_qc8w_packed_size(n, ks, kc, ref->nr));
    int failures = 0;
    for (size_t i = 0; i < mr * ks * kc; ++i) rows[i] = extreme ? -32768 : random_input();
    for (size_t i = 0; i < n * ks * kc; ++i) w[i] = extreme ? (i / (ks * kc) % 2 ? 127 : -128) : random_weight();
    for (size_t j = 0; j < n; ++j) {
        bias[j] = (int64_t)(next_random() % 2000001) - 1000000;
        channel[j].multiplier = (int32_t)((1u << 30) + next_random() % (1u << 24) * 64);
        channel[j].shift = -(int32_t)(next_random() % 20) - (rounding == RL_QS16_DOUBLE32 ? 0 : 4);
        channel[j].scale = ldexp((double)channel[j].multiplier, channel[j].shift - 31 - 4);
    }
    const rl_qs16_requantization_params params = {.rounding = rounding, .act_min = -30000, .act_max = 32767};
    for (size_t p = 0; p < ks; ++p)
        for (size_t i = 0; i < MR; ++i) /* tap 1 of row 0 is padding; slots past mr repeat row 0 */
            ind[p * MR + i] = (p == 1 && i == 0) ? zero : rows + ((i < mr ? i : 0) * ks + p) * kc;
    for (size_t p = 0; p < ks; ++p)
        for (size_t i = 0; i < ref->mr; ++i) ind_ref[p * ref->mr + i] = ind[p * MR + (i < MR ? i : 0)];
    rl_pack_qs16_qc8w(n, ks, kc, cfg->nr, w, with_bias ? bias : NULL, 0, channel, packed);
    rl_pack_qs16_qc8w(n, ks, kc, ref->nr, w, with_bias ? bias : NULL, 0, channel, packed_ref);
    memset(c, 0x55, sizeof(int16_t) * MR * stride);
    cfg->igemm(mr, n, kc, ks, ind, packed, c, stride, &params);
    for (size_t i = 0; i < mr; ++i) {
        for (size_t j = 0; j < n; ++j) {
            int64_t sum = with_bias ? bias[j] : 0;
            for (size_t p = 0; p < ks; ++p)
                for (size_t k = 0; k < kc; ++k) sum += (int64_t)ind[p * MR + i][k] * w[(j * ks + p) * kc + k];
            const int16_t want = rl_qs16_requantize(sum, &channel[j], &params);
            if (c[i * stride + j] != want && failures++ < 5)
                printf("mr %zu n %zu kc %zu ks %zu rounding %d: c[%zu][%zu] = %d, formula %d\n", mr, n, kc, ks,
                       rounding, i, j, c[i * stride + j], want);
        }
        for (size_t j = n; j < stride; ++j)
            if ((uint16_t)c[i * stride + j] != 0x5555 && failures++ < 5)
                printf("mr %zu n %zu kc %zu: wrote column %zu past n\n", mr, n, kc, j);
    }
    for (size_t i = mr; i < MR; ++i)
        for (size_t j = 0; j < stride; ++j)
            if ((uint16_t)c[i * stride + j] != 0x5555 && failures++ < 5) printf("mr %zu: wrote row %zu\n", mr, i);
    /* the scalar kernel, MR rows at a time of its own */
    for (size_t i0 = 0; i0 < mr; i0 += ref->mr) {
        const size_t rows_now = mr - i0 < ref->mr ? mr - i0 : ref->mr;
        for (size_t p = 0; p < ks; ++p)
            for (size_t i = 0; i < ref->mr; ++i) ind_ref[p * ref->mr + i] = ind[p * MR + (i0 + i < mr ? i0 + i : i0)];
        ref->igemm(rows_now, n, kc, ks, ind_ref, packed_ref, c_ref + i0 * stride, stride, &params);
    }
    for (size_t i = 0; i < mr; ++i)
        for (size_t j = 0; j < n; ++j)
            if (c[i * stride + j] != c_ref[i * stride + j] && failures++ < 5)
                printf("mr %zu n %zu kc %zu ks %zu: c[%zu][%zu] = %d, scalar kernel %d\n", mr, n, kc, ks, i, j,
                       c[i * stride + j], c_ref[i * stride + j]);
    free(rows); free(zero); free(w); free(bias); free(channel); free(ind); free(ind_ref);
    free(c); free(c_ref); free(packed); free(packed_ref);
    return failures;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s scalar|avx2\n", argv[0]);
        return 2;
    }
    rl_isa isa = RL_ISA_SCALAR;
    if (strcmp(argv[1], "avx2") == 0) isa = RL_ISA_AVX2;
    else if (strcmp(argv[1], "neon") == 0) isa = RL_ISA_NEON;
    else if (strcmp(argv[1], "neondot") == 0) isa = RL_ISA_NEONDOT;
    else if (strcmp(argv[1], "scalar") != 0) return 2;
    const rl_qs16_gemm_config cfg = rl_qs16_gemm_config_for(isa), ref = rl_qs16_gemm_config_for(RL_ISA_SCALAR);
    if (isa != RL_ISA_SCALAR && cfg.igemm == ref.igemm) {
        printf("%s is not built for this architecture\n", argv[1]);
        return 77;
    }
#if RL_HAVE_NEON_KERNELS
    if ((isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) && !rl_isa_supported(isa)) { /* HWCAP, as dispatch reads it */
        printf("skipped: this CPU lacks %s\n", argv[1]);
        return 77;
    }
    if (cfg.igemm == qs16_qc8w_igemm_4x8c2__neon) printf("kernel qs16_qc8w_igemm_4x8c2__neon\n");
#endif
    static const size_t kcs[] = {1, 2, 3, 4, 7, 8, 15, 16, 17, 255, 256, 257, 258, 301, 1025};
    static const size_t kss[] = {1, 2, 9};
    int failures = 0, cases = 0;
    for (int32_t rounding = 0; rounding < 3; ++rounding)
        for (size_t mr = 1; mr <= cfg.mr; ++mr)
            for (size_t n = 1; n <= 2 * cfg.nr + 1; ++n)
                for (size_t a = 0; a < sizeof kcs / sizeof *kcs; ++a)
                    for (size_t b = 0; b < sizeof kss / sizeof *kss; ++b) {
                        if (kcs[a] > 100 && kss[b] > 2 && n % 3 != 0) continue; /* long cases: a sample */
                        failures += check(&cfg, &ref, mr, n, kcs[a], kss[b], rounding, (int)((n + a) % 2), 0);
                        ++cases;
                        if (kcs[a] > 200) { /* sums past 2^31 */
                            failures += check(&cfg, &ref, mr, n, kcs[a], kss[b], rounding, (int)(n % 2), 1);
                            ++cases;
                        }
                    }
    printf("%s: %d cases, %d failures\n", argv[1], cases, failures);
    return failures ? 1 : 0;
}
