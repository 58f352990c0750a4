/* qd8_f32_qc8w_gemm_1x16c2__avx2.c — the AVX2 hybrid GEMM of one row (a decoder step's FULLY_CONNECTED, a block of
 * one or two rows): the 6-row tile computes a lone row 6 times (hybrid FULLY_CONNECTED 768 -> 768 of one row took
 * as long as of six). The same template (qd8_f32_qc8w_6x16c2__avx2.h) at 1 row, so the same bits. */
#define RL_QS8_AVX2_MR 1
#include "qd8_f32_qc8w_6x16c2__avx2.h"

void qd8_f32_qc8w_gemm_1x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params) {
    gemm_mrx16c2(mr, nc, kc, a, a_stride, w, c, c_stride, rows, params);
}
