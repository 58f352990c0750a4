/* f32_vactivation_configs.c — which logistic and tanh kernels (f32_vactivation.h) each instruction-set path runs. */
#include "f32_vactivation.h"

rl_f32_vactivation_config rl_f32_vactivation_config_for(rl_isa isa) {
    const rl_f32_vactivation_config scalar = {.sigmoid = f32_vsigmoid__scalar, .tanh = f32_vtanh__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_f32_vactivation_config avx2 = {.sigmoid = f32_vsigmoid__avx2, .tanh = f32_vtanh__avx2};
    return isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? avx2 : scalar;
#else
    (void)isa;
    return scalar;
#endif
}
