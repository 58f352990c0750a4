/* f32_vexp_configs.c — which softmax, GELU and row-sum micro-kernels (f32_vexp.h) each instruction-set path runs. */
#include "f32_vexp.h"

rl_f32_vexp_config rl_f32_vexp_config_for(rl_isa isa) {
    const rl_f32_vexp_config scalar = {.rmax = f32_rmax__scalar,
                                       .raddstoreexpminusmax = f32_raddstoreexpminusmax__scalar,
                                       .vscale = f32_vscale__scalar,
                                       .gelu = f32_vgelu__scalar, .gelu_tanh = f32_vgelu_tanh__scalar,
                                       .rsum = f32_rsum__scalar, .rsumsqdiff = f32_rsumsqdiff__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_f32_vexp_config avx2 = {.rmax = f32_rmax__avx2, .raddstoreexpminusmax = f32_raddstoreexpminusmax__avx2,
                                     .vscale = f32_vscale__avx2, .gelu = f32_vgelu__avx2,
                                     .gelu_tanh = f32_vgelu_tanh__avx2, .rsum = f32_rsum__avx2,
                                     .rsumsqdiff = f32_rsumsqdiff__avx2};
    rl_f32_vexp_config avx512 = avx2; /* AVX-512 kernels throughout, each XNNPACK's for AVX-512 */
    avx512.rmax = f32_rmax__avx512;
    avx512.raddstoreexpminusmax = f32_raddstoreexpminusmax__avx512;
    avx512.vscale = f32_vscale__avx512;
    avx512.rsum = f32_rsum__avx512;
    avx512.rsumsqdiff = f32_rsumsqdiff__avx512;
    avx512.gelu = f32_vgelu__avx512;
    avx512.gelu_tanh = f32_vgelu_tanh__avx512;
    if (isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return avx512;
    return isa == RL_ISA_AVX2 ? avx2 : scalar;
#elif RL_HAVE_NEON_KERNELS
    const rl_f32_vexp_config neon = {.rmax = f32_rmax__neon, .raddstoreexpminusmax = f32_raddstoreexpminusmax__neon,
                                     .vscale = f32_vscale__neon, .gelu = f32_vgelu__neon,
                                     .gelu_tanh = f32_vgelu_tanh__neon, .rsum = f32_rsum__neon,
                                     .rsumsqdiff = f32_rsumsqdiff__neon};
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}
