/* qd8_f32_qc8w_igemm_8x16c4__avx512vnni.c — hybrid IGEMM (rows through an indirection buffer, padding taps at
 * the row's zero point), per-channel int8 weights, float32 out, 8 rows x 16 columns, kr 4, AVX-512 VNNI: the
 * GEMM's k loop over each tap's rows (qd8_f32_qc8w_mrx16c4__avx512vnni.h has the arithmetic). */
#define RL_QD8_VNNI_MR 8
#include "qd8_f32_qc8w_mrx16c4__avx512vnni.h"

void qd8_f32_qc8w_igemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks,
                                           const int8_t *const *indirection, const void *w, float *c,
                                           size_t c_stride, const rl_qd8_row_quantization *rows,
                                           const rl_f32_minmax_params *params) {
    igemm_mrx16c4(mr, nc, kc, ks, indirection, w, c, c_stride, rows, params, 0);
}
