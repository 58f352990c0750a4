/* qs16_configs.c — which 16x8 IGEMM kernel (qs16_gemm.h) each instruction-set path runs. x86 kernels are
 * named only on x86-64 and NEON ones only where the build links them (isa.h), so this file builds for every
 * architecture. */
#include "qs16_gemm.h"

rl_qs16_gemm_config rl_qs16_gemm_config_for(rl_isa isa) {
    const rl_qs16_gemm_config scalar = {.mr = 2, .nr = 4, .igemm = qs16_qc8w_igemm_2x4c2__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_qs16_gemm_config avx2 = {.mr = 4, .nr = 16, .igemm = qs16_qc8w_igemm_4x16c2__avx2};
    return isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? avx2 : scalar;
#elif RL_HAVE_NEON_KERNELS
    const rl_qs16_gemm_config neon = {.mr = 4, .nr = 8, .igemm = qs16_qc8w_igemm_4x8c2__neon};
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar; /* no dot product for int16: NEON's */
#else
    (void)isa;
    return scalar;
#endif
}
