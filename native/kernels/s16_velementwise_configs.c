/* s16_velementwise_configs.c — which int16 element-wise kernels (s16_velementwise.h) each instruction-set path
 * runs. */
#include "s16_velementwise.h"

rl_s16_velementwise_config rl_s16_velementwise_config_for(rl_isa isa) {
    const rl_s16_velementwise_config scalar = {.vaddsub = s16_vaddsub__scalar, .f32_s16_vcvt = f32_s16_vcvt__scalar,
                                                .vlut = s16_vlut__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_s16_velementwise_config avx2 = {.vaddsub = s16_vaddsub__avx2, .f32_s16_vcvt = f32_s16_vcvt__avx2,
                                              .vlut = s16_vlut__avx2};
    return isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? avx2 : scalar;
#elif RL_HAVE_NEON_KERNELS
    const rl_s16_velementwise_config neon = {.vaddsub = s16_vaddsub__neon, .f32_s16_vcvt = f32_s16_vcvt__scalar,
                                              .vlut = s16_vlut__neon};
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}
