/* qdu8_f32_qc8w_gemm_5x16c4__avx512vnni.c — qdu8_f32_qc8w_gemm_8x16c4__avx512vnni for a block of five rows (the
 * last block of ViT's 197 tokens): the 8-row tile computes its rows again up to 8, and the 4-row tile then the
 * one-row kernel stream the weights twice. The same template, so the same bits (qd8_f32_qc8w_mrx16c4__avx512vnni.h). */
#define RL_QD8_VNNI_MR 5
#include "qd8_f32_qc8w_mrx16c4__avx512vnni.h"

void qdu8_f32_qc8w_gemm_5x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {
    gemm_mrx16c4(mr, nc, kc, a, a_stride, w, c, c_stride, rows, params, 1);
}
