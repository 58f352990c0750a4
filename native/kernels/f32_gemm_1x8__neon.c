/* f32_gemm_1x8__neon.c — float32 GEMM of one row by 8 columns per step, NEON (aarch64 and armv7): the drivers'
 * block of a single row (a 1x1 convolution of one pixel, a squeeze-and-excite block's or a classifier head's,
 * and the last row of a 7x7 layer's 49), which the 6x8 tile computed six times over (rows past mr alias the
 * last). f32_mrx8__neon.h, the template of every NEON float GEMM tile, says how the sums run: the same order
 * as the 4x8 and 6x8 tiles, so a row gets the same bits whichever tile computes it. */
#define RL_F32_NEON_MR 1
#include "f32_mrx8__neon.h"

void f32_gemm_1x8__neon(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,
                        size_t c_stride, const rl_f32_minmax_params *params) {
    gemm(mr, nc, kc, a, a_stride, w, c, c_stride, params);
}
