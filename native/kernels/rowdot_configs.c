/* rowdot_configs.c — which row-dot micro-kernels (rowdot.h) each instruction-set path runs. x86 kernels are named
 * only on x86-64 and NEON ones only where the build links them (isa.h's RL_HAVE_NEON_KERNELS), so this file
 * builds for every architecture. */
#include "rowdot.h"

rl_f32_rowdot_config rl_f32_rowdot_config_for(rl_isa isa) {
    const rl_f32_rowdot_config scalar = {.nr = 4, .rowdot = f32_rowdot_1x4__scalar, .vecmat = f32_vecmat__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_f32_rowdot_config avx2 = {.nr = 4, .rowdot = f32_rowdot_1x4__avx2, .vecmat = f32_vecmat_1x32__avx2};
    const rl_f32_rowdot_config avx512 = {.nr = 4, .rowdot = f32_rowdot_1x4__avx512,
                                          .vecmat = f32_vecmat_1x64__avx512};
    switch (isa) {
    case RL_ISA_AVX512VNNI: /* no float32 use for VNNI: AVX-512's */
    case RL_ISA_AVX512: return avx512;
    case RL_ISA_AVX2: return avx2;
    default: return scalar;
    }
#elif RL_HAVE_NEON_KERNELS
    /* No NEON row-times-matrix kernel yet: the scalar one, which the compiler vectorises. */
    const rl_f32_rowdot_config neon = {.nr = 4, .rowdot = f32_rowdot_1x4__neon, .vecmat = f32_vecmat__scalar};
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}

rl_qs8_rowdot_config rl_qs8_rowdot_config_for(rl_isa isa) {
    const rl_qs8_rowdot_config scalar = {.nr = 4, .input_offset = 0, .rowdot = qs8_qc8w_rowdot_1x4__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qs8_rowdot_config avx2 = {.nr = 4, .input_offset = 0, .rowdot = qs8_qc8w_rowdot_1x4__avx2};
    const rl_qs8_rowdot_config avx512vnni = {.nr = 4, .input_offset = 128,
                                             .rowdot = qs8_qc8w_rowdot_1x4__avx512vnni};
    switch (isa) {
    case RL_ISA_AVX512VNNI: return avx512vnni;
    case RL_ISA_AVX512: /* no plain AVX-512 kernel: AVX2's */
    case RL_ISA_AVX2: return avx2;
    default: return scalar;
    }
#elif RL_HAVE_NEON_KERNELS
    const rl_qs8_rowdot_config neon = {.nr = 4, .input_offset = 0, .rowdot = qs8_qc8w_rowdot_1x4__neon};
#if defined(__aarch64__)
    const rl_qs8_rowdot_config neondot = {.nr = 4, .input_offset = 0, .rowdot = qs8_qc8w_rowdot_1x4__neondot};
    if (isa == RL_ISA_NEONDOT) return neondot;
#endif
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}

rl_s8_s32_rowdot_config rl_s8_s32_rowdot_config_for(rl_isa isa) {
    const rl_s8_s32_rowdot_config scalar = {.rowdot = s8_s32_rowdot_1x4__scalar,
                                            .rowdot_narrow_weights = s8_s32_rowdot_1x4__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_s8_s32_rowdot_config avx2 = {.rowdot = s8_s32_rowdot_1x4__avx2,
                                          .rowdot_narrow_weights = s8_s32_rowdot_narrow_1x4__avx2};
    return isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? avx2 : scalar;
#elif RL_HAVE_NEON_KERNELS
    const rl_s8_s32_rowdot_config neon = {.rowdot = s8_s32_rowdot_1x4__neon,
                                          .rowdot_narrow_weights = s8_s32_rowdot_1x4__neon};
#if defined(__aarch64__)
    const rl_s8_s32_rowdot_config neondot = {.rowdot = s8_s32_rowdot_1x4__neondot,
                                             .rowdot_narrow_weights = s8_s32_rowdot_1x4__neondot};
    if (isa == RL_ISA_NEONDOT) return neondot;
#endif
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}
