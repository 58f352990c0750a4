/* qs8_configs.c — which int8 GEMM/IGEMM and depthwise micro-kernels each instruction-set path runs, and their
 * tiles. A path without kernels of its own falls back to the best lower one the same CPU also runs. x86
 * kernels are named only on x86-64 and NEON ones only where the build links them (isa.h's
 * RL_HAVE_NEON_KERNELS), so this file builds for every architecture. */
#include "qs8_configs.h"

rl_qs8_gemm_config rl_qs8_gemm_config_for(rl_isa isa) {
    const rl_qs8_gemm_config scalar = {.mr = 2, .nr = 4, .kr = 1, .input_offset = 0,
                                       .gemm = qs8_qc8w_gemm_2x4c1__scalar, .igemm = qs8_qc8w_igemm_2x4c1__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qs8_gemm_config avx2 = {.mr = 6, .nr = 16, .kr = 2, .input_offset = 0,
                                     .gemm = qs8_qc8w_gemm_6x16c2__avx2, .igemm = qs8_qc8w_igemm_6x16c2__avx2,
                                     .packw_panel = qs8_qc8w_gemm_packw_16c2__avx2};
    const rl_qs8_gemm_config avx512vnni = {.mr = 7, .nr = 16, .kr = 4, .input_offset = 128,
                                           .gemm = qs8_qc8w_gemm_7x16c4__avx512vnni,
                                           .igemm = qs8_qc8w_igemm_7x16c4__avx512vnni};
    switch (isa) {
    case RL_ISA_AVX512VNNI: return avx512vnni;
    case RL_ISA_AVX512: /* no plain AVX-512 kernels: AVX2's */
    case RL_ISA_AVX2: return avx2;
    default: return scalar;
    }
#elif RL_HAVE_NEON_KERNELS
    const rl_qs8_gemm_config neon = {.mr = 4, .nr = 8, .kr = 1, .input_offset = 0,
                                     .gemm = qs8_qc8w_gemm_4x8c1__neon, .igemm = qs8_qc8w_igemm_4x8c1__neon};
    switch (isa) {
#if defined(__aarch64__)
    case RL_ISA_NEONDOT: {
        const rl_qs8_gemm_config neondot = {.mr = 4, .nr = 16, .kr = 4, .input_offset = 0,
                                            .gemm = qs8_qc8w_gemm_4x16c4__neondot,
                                            .igemm = qs8_qc8w_igemm_4x16c4__neondot, .any_m = 1};
        return neondot;
    }
#endif
    case RL_ISA_NEON: return neon;
    default: return scalar;
    }
#else
    (void)isa;
    return scalar;
#endif
}

rl_qs8_gemm_config rl_qs8_gemm_pairs_config_for(rl_isa isa) {
#if defined(__aarch64__) && RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON) {
        const rl_qs8_gemm_config neon = {.mr = 2, .nr = 8, .kr = 16, .input_offset = 0,
                                         .gemm = qs8_qc8w_gemm_2x8c16__neon, .igemm = qs8_qc8w_igemm_2x8c16__neon};
        return neon;
    }
#endif
    (void)isa;
    const rl_qs8_gemm_config none = {.mr = 0};
    return none;
}

rl_qs8_dwconv_config rl_qs8_dwconv_config_for(rl_isa isa) {
    const rl_qs8_dwconv_config scalar = {.channel_tile = 4, .dwconv = qs8_qc8w_dwconv_4c__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qs8_dwconv_config avx2 = {.channel_tile = 16, .dwconv = qs8_qc8w_dwconv_16c__avx2};
    const rl_qs8_dwconv_config avx512 = {.channel_tile = 32, .dwconv = qs8_qc8w_dwconv_32c__avx512};
    switch (isa) {
    case RL_ISA_AVX512VNNI: /* depthwise has no 4-byte dot products for VNNI to speed up: AVX-512's */
    case RL_ISA_AVX512: return avx512;
    case RL_ISA_AVX2: return avx2;
    default: return scalar;
    }
#elif RL_HAVE_NEON_KERNELS
    const rl_qs8_dwconv_config neon = {.channel_tile = 16, .dwconv = qs8_qc8w_dwconv_16c__neon,
                                       .dwconv_pairs = qs8_qc8w_dwconv_16c_pairs__neon};
    switch (isa) {
    case RL_ISA_NEONDOT: /* depthwise has no 4-byte dot products for sdot to speed up: NEON's */
    case RL_ISA_NEON: return neon;
    default: return scalar;
    }
#else
    (void)isa;
    return scalar;
#endif
}

rl_qs8_dwconv_config rl_qs8_dwconv_narrow_config_for(rl_isa isa) {
    return rl_qs8_dwconv_config_for(isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? RL_ISA_AVX2 : isa);
}

rl_qs8_dwconv_config rl_qs8_dwconv_small_config_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) {
        const rl_qs8_dwconv_config narrow = {.channel_tile = 8, .dwconv = qs8_qc8w_dwconv_8c__avx2};
        return narrow;
    }
#endif
    return rl_qs8_dwconv_config_for(isa);
}

rl_qs8_vbinary_config rl_qs8_vbinary_config_for(rl_isa isa) {
    const rl_qs8_vbinary_config scalar = {.vadd = qs8_vadd_minmax__scalar, .vaddc = qs8_vaddc_minmax__scalar,
                                          .vmul = qs8_vmul_minmax_fp32__scalar,
                                          .vmulc = qs8_vmulc_minmax_fp32__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qs8_vbinary_config avx2 = {.vadd = qs8_vadd_minmax__avx2, .vaddc = qs8_vaddc_minmax__avx2,
                                        .vmul = qs8_vmul_minmax_fp32__avx2, .vmulc = qs8_vmulc_minmax_fp32__avx2};
    /* AVX-512's ADD kernels take 32 elements a step with masked tails; MUL keeps AVX2's */
    const rl_qs8_vbinary_config avx512 = {.vadd = qs8_vadd_minmax__avx512, .vaddc = qs8_vaddc_minmax__avx512,
                                          .vmul = qs8_vmul_minmax_fp32__avx2, .vmulc = qs8_vmulc_minmax_fp32__avx2};
    if (isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return avx512;
    if (isa == RL_ISA_AVX2) return avx2;
#elif RL_HAVE_NEON_KERNELS
    const rl_qs8_vbinary_config neon = {.vadd = qs8_vadd_minmax__neon, .vaddc = qs8_vaddc_minmax__neon,
                                        .vmul = qs8_vmul_minmax_fp32__neon, .vmulc = qs8_vmulc_minmax_fp32__neon};
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return neon;
#endif
    (void)isa;
    return scalar;
}

rl_qs8_pool_config rl_qs8_pool_config_for(rl_isa isa) {
    const rl_qs8_pool_config scalar = {.maxpool = qs8_maxpool__scalar, .avgpool = qs8_avgpool__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qs8_pool_config avx2 = {.maxpool = qs8_maxpool__avx2, .avgpool = qs8_avgpool__avx2};
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return avx2;
#elif RL_HAVE_NEON_KERNELS
    const rl_qs8_pool_config neon = {.maxpool = qs8_maxpool__neon, .avgpool = qs8_avgpool__neon};
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return neon;
#endif
    (void)isa;
    return scalar;
}

rl_s8_ibilinear_fn rl_s8_ibilinear_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return s8_ibilinear__avx2;
#elif RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return s8_ibilinear__neon;
#endif
    (void)isa;
    return s8_ibilinear__scalar;
}

rl_s8_lut_fn rl_s8_lut_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return s8_lut__avx2;
#elif RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return s8_lut__neon;
#endif
    (void)isa;
    return s8_lut_ref;
}

rl_qs8_rdsum_fn rl_qs8_rdsum_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return qs8_rdsum__avx2;
#elif RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return qs8_rdsum__neon;
#endif
    (void)isa;
    return qs8_rdsum__scalar;
}
