/* f32_igemm_4x8__neon.c — float32 indirect GEMM (convolution through row pointers), 4 rows by 8 columns per
 * step, NEON (aarch64 and armv7). f32_mrx8__neon.h, the template of every NEON float GEMM tile, says how the
 * sums run. */
#define RL_F32_NEON_MR 4
#include "f32_mrx8__neon.h"

void f32_igemm_4x8__neon(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                         const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    igemm(mr, nc, kc, ks, indirection, w, c, c_stride, params);
}
