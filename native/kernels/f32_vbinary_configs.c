/* f32_vbinary_configs.c — which float32 element-wise binary and LEAKY_RELU micro-kernels (kernels.h's
 * rl_f32_vbinary_config) each instruction-set path runs. x86 kernels are named only on x86-64 and NEON ones
 * only where the build links them (isa.h), so this file builds for every architecture. */
#include "kernels.h"

rl_f32_vbinary_config rl_f32_vbinary_config_for(rl_isa isa) {
    const rl_f32_vbinary_config scalar = {.vbinary = f32_vbinary__scalar, .vbinaryc = f32_vbinaryc__scalar,
                                          .vbinary_rows = f32_vbinary_rows__scalar, .vlrelu = f32_vlrelu__scalar};
#if defined(__x86_64__) || defined(_M_X64)
    const rl_f32_vbinary_config avx2 = {.vbinary = f32_vbinary__avx2, .vbinaryc = f32_vbinaryc__avx2,
                                        .vbinary_rows = f32_vbinary_rows__avx2, .vlrelu = f32_vlrelu__avx2};
    return isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI ? avx2 : scalar;
#elif RL_HAVE_NEON_KERNELS
    const rl_f32_vbinary_config neon = {.vbinary = f32_vbinary__neon, .vbinaryc = f32_vbinaryc__neon,
                                        .vbinary_rows = f32_vbinary_rows__neon, .vlrelu = f32_vlrelu__neon};
    return isa == RL_ISA_NEON || isa == RL_ISA_NEONDOT ? neon : scalar;
#else
    (void)isa;
    return scalar;
#endif
}
