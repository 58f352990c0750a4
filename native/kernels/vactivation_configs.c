/* vactivation_configs.c — which logistic and tanh kernels (vactivation.h) each instruction-set path runs. */
#include "vactivation.h"

rl_vactivation_config rl_vactivation_config_for(rl_isa isa) {
    const rl_vactivation_config scalar = {.f32_sigmoid = f32_vsigmoid__scalar, .f32_tanh = f32_vtanh__scalar,
                                          .s16_sigmoid = s16_vsigmoid__scalar, .s16_tanh = s16_vtanh__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_vactivation_config avx2 = {.f32_sigmoid = f32_vsigmoid__avx2, .f32_tanh = f32_vtanh__avx2,
                                        .s16_sigmoid = s16_vsigmoid__avx2, .s16_tanh = s16_vtanh__avx2};
    return isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? avx2 : scalar;
#elif RL_HAVE_NEON_KERNELS
    const rl_vactivation_config neon = {.f32_sigmoid = f32_vsigmoid__neon, .f32_tanh = f32_vtanh__neon,
                                        .s16_sigmoid = s16_vsigmoid__neon, .s16_tanh = s16_vtanh__neon};
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}
