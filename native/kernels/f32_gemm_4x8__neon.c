/* f32_gemm_4x8__neon.c — float32 GEMM, 4 rows by 8 columns per step, NEON (aarch64 and armv7): 8 accumulators,
 * 2 weight vectors and 4 rows of 4 inputs fit armv7's 16 q registers. f32_mrx8__neon.h, the template of every
 * NEON float GEMM tile, says how the sums run. */
#define RL_F32_NEON_MR 4
#include "f32_mrx8__neon.h"

void f32_gemm_4x8__neon(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,
                        size_t c_stride, const rl_f32_minmax_params *params) {
    gemm(mr, nc, kc, a, a_stride, w, c, c_stride, params);
}
