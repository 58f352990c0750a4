/* qd8_f32_qc8w_gemm_8x16c4__avx512vnni.c — hybrid GEMM (int8 rows quantized per row, per-channel int8
 * weights, float32 out), 8 rows x 16 columns, kr 4, AVX-512 VNNI: one broadcast of 4 input bytes per row and
 * one load of 16 columns x 4 weights per step, twice the products per instruction of the AVX2 kernel's
 * vpmaddwd and no widening of the rows (qd8_f32_qc8w_mrx16c4__avx512vnni.h has the arithmetic). */
#define RL_QD8_VNNI_MR 8
#include "qd8_f32_qc8w_mrx16c4__avx512vnni.h"

void qd8_f32_qc8w_gemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                          const void *w, float *c, size_t c_stride,
                                          const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {
    gemm_mrx16c4(mr, nc, kc, a, a_stride, w, c, c_stride, rows, params, 0);
}
