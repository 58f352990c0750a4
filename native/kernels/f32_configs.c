/* f32_configs.c — maps an instruction-set path to its float32 GEMM, depthwise and pooling kernels and tiles, and
 * the conversions of QUANTIZE (float32 to int8) and DEQUANTIZE (int8 to float32).
 *
 * Tables are built with designated initializers, so a reordered struct field fails to compile instead of
 * swapping two kernels. x86 kernels are named only on x86-64 and NEON ones only where the build links them
 * (isa.h's RL_HAVE_NEON_KERNELS), so this file builds for every architecture. */
#include "f32_configs.h"

#include "f32_microkernels.h"
#include "kernels.h"

rl_f32_gemm_config rl_f32_gemm_config_for(rl_isa isa) {
    switch (isa) {
#if defined(__x86_64__) || defined(_M_X64)
    case RL_ISA_AVX512VNNI: /* no float32 use for VNNI: the AVX-512 kernels */
    case RL_ISA_AVX512: {
        const rl_f32_gemm_config config = {.mr = 7, .nr = 16, .gemm = f32_gemm_7x16__avx512,
                                           .igemm = f32_igemm_7x16__avx512, .packw_goi = f32_gemm_packw_goi_x16__avx2};
        return config;
    }
    case RL_ISA_AVX2: {
        const rl_f32_gemm_config config = {.mr = 6, .nr = 16, .gemm = f32_gemm_6x16__avx2,
                                           .igemm = f32_igemm_6x16__avx2, .packw_goi = f32_gemm_packw_goi_x16__avx2};
        return config;
    }
#endif
#if RL_HAVE_NEON_KERNELS
    case RL_ISA_NEONDOT: /* no float32 use for dot products: NEON's */
    case RL_ISA_NEON: {
#if defined(__aarch64__) /* 32 q registers: the 6x8 tile (f32_mrx8__neon.h says why) */
        const rl_f32_gemm_config config = {.mr = 6, .nr = 8, .gemm = f32_gemm_6x8__neon, .igemm = f32_igemm_6x8__neon,
                                           .packw_goi = f32_gemm_packw_goi_x8__neon, .gemm1 = f32_gemm_1x8__neon};
#else
        const rl_f32_gemm_config config = {.mr = 4, .nr = 8, .gemm = f32_gemm_4x8__neon, .igemm = f32_igemm_4x8__neon,
                                           .packw_goi = f32_gemm_packw_goi_x8__neon, .gemm1 = f32_gemm_1x8__neon};
#endif
        return config;
    }
#endif
    default: { /* scalar, and a path this build has no kernels for */
        const rl_f32_gemm_config config = {.mr = 4, .nr = 4, .gemm = f32_gemm_4x4__scalar,
                                           .igemm = f32_igemm_4x4__scalar, .packw_goi = f32_gemm_packw_goi__scalar};
        return config;
    }
    }
}

rl_f32_gemm_config rl_f32_gemm_wide_config_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) { /* f32_igemm_7xnr__avx512.h says why */
        const rl_f32_gemm_config config = {.mr = 7, .nr = 32, .gemm = f32_gemm_7x32__avx512,
                                           .igemm = f32_igemm_7x32__avx512, .packw_goi = f32_gemm_packw_goi_x16__avx2};
        return config;
    }
#endif
    return rl_f32_gemm_config_for(isa);
}

rl_f32_dwconv_config rl_f32_dwconv_config_for(rl_isa isa) {
    switch (isa) {
#if defined(__x86_64__) || defined(_M_X64)
    case RL_ISA_AVX512VNNI:
    case RL_ISA_AVX512: {
        const rl_f32_dwconv_config config = {.channel_tile = 32, .dwconv = f32_dwconv__avx512};
        return config;
    }
    case RL_ISA_AVX2: {
        const rl_f32_dwconv_config config = {.channel_tile = 16, .dwconv = f32_dwconv__avx2};
        return config;
    }
#endif
#if RL_HAVE_NEON_KERNELS
    case RL_ISA_NEONDOT:
    case RL_ISA_NEON: {
        const rl_f32_dwconv_config config = {.channel_tile = 8, .dwconv = f32_dwconv__neon};
        return config;
    }
#endif
    default: {
        const rl_f32_dwconv_config config = {.channel_tile = 4, .dwconv = f32_dwconv__scalar};
        return config;
    }
    }
}

rl_f32_dwconv_config rl_f32_dwconv_narrow_config_for(rl_isa isa) {
    return rl_f32_dwconv_config_for(isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? RL_ISA_AVX2 : isa);
}

rl_f32_dwconv_config rl_f32_dwconv_small_config_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) {
        const rl_f32_dwconv_config config = {.channel_tile = 8, .dwconv = f32_dwconv_8c__avx2};
        return config;
    }
#endif
    return rl_f32_dwconv_config_for(isa);
}

rl_f32_pool_config rl_f32_pool_config_for(rl_isa isa) {
    const rl_f32_pool_config scalar = {.maxpool = f32_maxpool__scalar, .avgpool = f32_avgpool__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_f32_pool_config avx2 = {.maxpool = f32_maxpool__avx2, .avgpool = f32_avgpool__avx2};
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return avx2;
#elif RL_HAVE_NEON_KERNELS
    const rl_f32_pool_config neon = {.maxpool = f32_maxpool__neon, .avgpool = f32_avgpool__neon};
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return neon;
#endif
    (void)isa;
    return scalar;
}

rl_f32_qs8_vcvt_fn rl_f32_qs8_vcvt_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return f32_qs8_vcvt__avx2;
#elif RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return f32_qs8_vcvt__neon;
#endif
    (void)isa;
    return f32_s8_quantize_ref;
}

rl_qs8_f32_vcvt_fn rl_qs8_f32_vcvt_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return qs8_f32_vcvt__avx2;
#elif RL_HAVE_NEON_KERNELS
    if (isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT) return qs8_f32_vcvt__neon;
#endif
    (void)isa;
    return qs8_f32_vcvt__scalar;
}
