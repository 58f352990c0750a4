/* qd8_f32_qc8w_gemm_6x16c2__avx2.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights,
 * float32 out), 6 rows x 16 columns, kr 2, AVX2: qs8_qc8w_gemm_6x16c2__avx2's products (rows sign-extended to
 * int16 once per call, pairs multiplied with vpmaddwd: exact, wrapping int32 sums) between a start of
 * -zero_point * sum(w) and XNNPACK's float epilogue (qd8_f32_qc8w_6x16c2__avx2.h). */
#include "qd8_f32_qc8w_6x16c2__avx2.h"

void qd8_f32_qc8w_gemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params) {
    gemm_mrx16c2(mr, nc, kc, a, a_stride, w, c, c_stride, rows, params);
}
