/* f32_igemm_6x8__neon.c — float32 indirect GEMM (convolution through row pointers), 6 rows by 8 columns per
 * step, NEON on aarch64 only (armv7 keeps f32_igemm_4x8__neon; on armv7 this file compiles to nothing).
 * f32_mrx8__neon.h, the template of every NEON float GEMM tile, says how the sums run. */
#if defined(__aarch64__)
#define RL_F32_NEON_MR 6
#include "f32_mrx8__neon.h"

void f32_igemm_6x8__neon(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                         const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    igemm(mr, nc, kc, ks, indirection, w, c, c_stride, params);
}
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_f32_igemm_6x8__neon_not_on_armv7;
#endif
