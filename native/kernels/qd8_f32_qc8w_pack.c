/* qd8_f32_qc8w_pack.c — packs hybrid GEMM/IGEMM weights into qd8_gemm.h's layout, once, at prepare: the
 * weights as rl_pack_qs8_gemm lays them out (so both int8 families share the panel shape), with each column's
 * weight sum in front (the zero point varies per row, so it cannot be folded here as qs8's is) and the
 * weight scales and float biases behind. Fields are written with memcpy (4-byte offsets, nr * kr a multiple
 * of 4 in every config). */
#include <string.h>

#include "kernels.h" /* the reference quantizations */
#include "qd8_gemm.h"

static size_t round_up(size_t x, size_t multiple) { return (x + multiple - 1) / multiple * multiple; }

static size_t panel_width(size_t n, size_t n0, size_t nr) { return n - n0 < nr && nr == 16 && n - n0 <= 8 ? 8 : nr; }

size_t rl_qd8_gemm_packed_size(size_t n, size_t ks, size_t kc, size_t nr, size_t kr) {
    const size_t whole = n / nr * nr;
    const size_t columns = whole + (whole < n ? panel_width(n, whole, nr) : 0);
    return columns * (sizeof(int32_t) + ks * round_up(kc, kr) + 2 * sizeof(float));
}

/* Weight (col, k) of tap p at w[col * col_stride + (p * kc + k) * k_stride]. */
static void pack(size_t n, size_t ks, size_t kc, size_t nr, size_t kr, const int8_t *w, size_t col_stride,
                 size_t k_stride, const float *scales, const float *bias, void *packed) {
    const size_t kcr = round_up(kc, kr);
    unsigned char *out = packed;
    for (size_t n0 = 0; n0 < n; n0 += nr) {
        const size_t width = panel_width(n, n0, nr);
        for (size_t j = 0; j < width; ++j) {
            uint32_t sum = 0; /* wrapping, as the kernels' accumulation */
            if (n0 + j < n)
                for (size_t k = 0; k < ks * kc; ++k) sum += (uint32_t)(int32_t)w[(n0 + j) * col_stride + k * k_stride];
            memcpy(out, &sum, sizeof sum);
            out += sizeof sum;
        }
        for (size_t p = 0; p < ks; ++p)
            for (size_t k0 = 0; k0 < kcr; k0 += kr)
                for (size_t j = 0; j < width; ++j)
                    for (size_t r = 0; r < kr; ++r) {
                        const size_t col = n0 + j, k = k0 + r;
                        *out++ = (unsigned char)(col < n && k < kc ? w[col * col_stride + (p * kc + k) * k_stride] : 0);
                    }
        for (size_t j = 0; j < width; ++j, out += sizeof(float)) {
            const float scale = n0 + j < n ? scales[n0 + j] : 0.0f;
            memcpy(out, &scale, sizeof scale);
        }
        for (size_t j = 0; j < width; ++j, out += sizeof(float)) {
            const float b = n0 + j < n && bias ? bias[n0 + j] : 0.0f;
            memcpy(out, &b, sizeof b);
        }
    }
}

void rl_pack_qd8_gemm(size_t n, size_t ks, size_t kc, size_t nr, size_t kr, const int8_t *w, const float *scales,
                      const float *bias, void *packed) {
    pack(n, ks, kc, nr, kr, w, ks * kc, 1, scales, bias, packed);
}

void rl_pack_qd8_gemm_kn(size_t n, size_t k, size_t nr, size_t kr, const int8_t *y, const float *scales,
                         void *packed) {
    pack(n, 1, k, nr, kr, y, 1, n, scales, NULL, packed);
}

rl_qd8_gemm_config rl_qd8_gemm_config_for(rl_isa isa) {
    const rl_qd8_gemm_config scalar = {.mr = 2, .nr = 4, .kr = 1, .gemm = qd8_f32_qc8w_gemm_2x4c1__scalar,
                                       .igemm = qd8_f32_qc8w_igemm_2x4c1__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qd8_gemm_config avx2 = {.mr = 6, .nr = 16, .kr = 2, .gemm = qd8_f32_qc8w_gemm_6x16c2__avx2,
                                     .igemm = qd8_f32_qc8w_igemm_6x16c2__avx2,
                                     .gemm_1row = qd8_f32_qc8w_gemm_1x16c2__avx2};
    const rl_qd8_gemm_config avx512vnni = {.mr = 8, .nr = 16, .kr = 4, .gemm = qd8_f32_qc8w_gemm_8x16c4__avx512vnni,
                                           .igemm = qd8_f32_qc8w_igemm_8x16c4__avx512vnni,
                                           .gemm_u8 = qdu8_f32_qc8w_gemm_8x16c4__avx512vnni,
                                           .quantize_u8 = f32_qdu8_quantize__avx512,
                                           .gemm_u8_1row = qdu8_f32_qc8w_gemm_1x16c4__avx512vnni,
                                           .gemm_u8_4row = qdu8_f32_qc8w_gemm_4x16c4__avx512vnni,
                                           .gemm_u8_5row = qdu8_f32_qc8w_gemm_5x16c4__avx512vnni,
                                           .igemm_u8 = qdu8_f32_qc8w_igemm_8x16c4__avx512vnni,
                                           .quantize_values_u8 = f32_qdu8_quantize_values__avx512};
    if (isa == RL_ISA_AVX512VNNI) return avx512vnni;
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512) return avx2;
#elif RL_HAVE_NEON_KERNELS
    const rl_qd8_gemm_config neon = {.mr = 4, .nr = 8, .kr = 1, .gemm = qd8_f32_qc8w_gemm_4x8c1__neon,
                                     .igemm = qd8_f32_qc8w_igemm_4x8c1__neon};
#if defined(__aarch64__)
    const rl_qd8_gemm_config neondot = {.mr = 4, .nr = 16, .kr = 4, .gemm = qd8_f32_qc8w_gemm_4x16c4__neondot,
                                        .igemm = qd8_f32_qc8w_igemm_4x16c4__neondot};
    if (isa == RL_ISA_NEONDOT) return neondot;
#endif
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return neon;
#endif
    (void)isa;
    return scalar;
}

rl_qd8_gemm_config rl_qd8_gemm_pairs_config_for(rl_isa isa) {
#if defined(__aarch64__) && RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON) {
        const rl_qd8_gemm_config neon = {.mr = 2, .nr = 8, .kr = 16, .gemm = qd8_f32_qc8w_gemm_2x8c16__neon,
                                         .igemm = qd8_f32_qc8w_igemm_2x8c16__neon};
        return neon;
    }
#endif
    (void)isa;
    const rl_qd8_gemm_config none = {.mr = 0};
    return none;
}

static float qd8_quantize_scalar(int64_t n, const float *x, int8_t *q, int32_t *zero_point) {
    return f32_qd8_quantize_ref(n, 1, x, q, zero_point);
}

rl_qd8_quantize_config rl_qd8_quantize_config_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) {
        const rl_qd8_quantize_config avx512 = {.qd8 = f32_qd8_quantize__avx512,
                                               .tflite = f32_qs8_asymmetric_quantize_tflite__avx2,
                                               .rminmax = f32_rminmax__avx512,
                                               .qd8_values = f32_qd8_quantize_values__avx512,
                                               .tflite_values = f32_qs8_quantize_values_tflite__avx2};
        return avx512;
    }
    if (isa == RL_ISA_AVX2) {
        const rl_qd8_quantize_config avx2 = {.qd8 = f32_qd8_quantize__avx2,
                                             .tflite = f32_qs8_asymmetric_quantize_tflite__avx2,
                                             .rminmax = f32_rminmax__avx2,
                                             .qd8_values = f32_qd8_quantize_values__avx2,
                                             .tflite_values = f32_qs8_quantize_values_tflite__avx2};
        return avx2;
    }
#elif defined(__aarch64__) && RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) {
        const rl_qd8_quantize_config neon = {.qd8 = f32_qd8_quantize__neon,
                                             .tflite = f32_qs8_asymmetric_quantize_tflite__neon,
                                             .rminmax = f32_rminmax__neon,
                                             .qd8_values = f32_qd8_quantize_values__neon,
                                             .tflite_values = f32_qs8_quantize_values_tflite__neon};
        return neon;
    }
#endif
    (void)isa;
    const rl_qd8_quantize_config scalar = {.qd8 = qd8_quantize_scalar,
                                           .tflite = f32_qs8_asymmetric_quantize_tflite_ref,
                                           .rminmax = f32_rminmax__scalar,
                                           .qd8_values = f32_qd8_quantize_values__scalar,
                                           .tflite_values = f32_qs8_quantize_values_tflite__scalar};
    return scalar;
}
