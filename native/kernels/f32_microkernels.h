/* f32_microkernels.h — prototypes of the float32 GEMM, IGEMM and depthwise micro-kernels, one per file.
 *
 * Signatures are gemm.h's rl_f32_gemm_fn / rl_f32_igemm_fn and dwconv.h's rl_f32_dwconv_fn; the name says
 * the tile (MRxNR, or the channel tile in the config) and the ISA the file is compiled for. Only
 * f32_configs.c should hand these out: calling an ISA kernel on a CPU without that ISA is an illegal
 * instruction. */
#ifndef RILLET_F32_MICROKERNELS_H
#define RILLET_F32_MICROKERNELS_H

#include <stddef.h>

#include "dwconv.h"
#include "gemm.h"
#include "isa.h"

#define RL_F32_GEMM_FN(name)                                                                                   \
    void name(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,    \
              size_t c_stride, const rl_f32_minmax_params *params)
#define RL_F32_IGEMM_FN(name)                                                                                  \
    void name(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection, const float *w,   \
              float *c, size_t c_stride, const rl_f32_minmax_params *params)
#define RL_F32_GEMM_PACKW_FN(name) void name(size_t n, size_t k, size_t nr, const float *w, float *packed)
#define RL_F32_DWCONV_FN(name)                                                                                 \
    void name(size_t channels, size_t pixels, size_t taps, const float *const *indirection,                  \
              size_t indirection_step, const float *w, float *output, size_t output_stride,                   \
              const rl_f32_minmax_params *params)

RL_F32_GEMM_FN(f32_gemm_4x4__scalar);
RL_F32_IGEMM_FN(f32_igemm_4x4__scalar);
RL_F32_GEMM_PACKW_FN(f32_gemm_packw_goi__scalar); /* any nr */
RL_F32_DWCONV_FN(f32_dwconv__scalar); /* channel tile 4 */

#if defined(__x86_64__) || defined(_M_X64)
RL_F32_GEMM_FN(f32_gemm_6x16__avx2);
RL_F32_IGEMM_FN(f32_igemm_6x16__avx2);
RL_F32_GEMM_PACKW_FN(f32_gemm_packw_goi_x16__avx2); /* nr 16 or 32: AVX2 and AVX-512 */
RL_F32_DWCONV_FN(f32_dwconv__avx2); /* channel tile 16 */
RL_F32_DWCONV_FN(f32_dwconv_8c__avx2); /* channel tile 8: few channels, AVX2 and AVX-512 */

RL_F32_GEMM_FN(f32_gemm_7x16__avx512);
RL_F32_IGEMM_FN(f32_igemm_7x16__avx512);
RL_F32_GEMM_FN(f32_gemm_7x32__avx512); /* wide layers (f32_igemm_7xnr__avx512.h) */
RL_F32_IGEMM_FN(f32_igemm_7x32__avx512);
RL_F32_DWCONV_FN(f32_dwconv__avx512); /* channel tile 32 */
#endif

#if RL_HAVE_NEON_KERNELS /* aarch64, and armv7 built with NEON */
RL_F32_GEMM_FN(f32_gemm_1x8__neon); /* a block of one row */
RL_F32_GEMM_FN(f32_gemm_4x8__neon);
RL_F32_IGEMM_FN(f32_igemm_4x8__neon);
#if defined(__aarch64__) /* 6 rows need more than armv7's 16 q registers */
RL_F32_GEMM_FN(f32_gemm_6x8__neon);
RL_F32_IGEMM_FN(f32_igemm_6x8__neon);
#endif
RL_F32_DWCONV_FN(f32_dwconv__neon); /* channel tile 8 */
RL_F32_GEMM_PACKW_FN(f32_gemm_packw_goi_x8__neon); /* nr 8 */
#endif

#endif
