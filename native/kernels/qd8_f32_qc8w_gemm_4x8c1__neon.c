/* qd8_f32_qc8w_gemm_4x8c1__neon.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights,
 * float32 out), 4 rows x 8 columns, kr 1, NEON without dot products (aarch64 and armv7): the int8 kernel's k
 * loop between a start of -zero_point * sum(w) and XNNPACK's float epilogue (qd8_f32_qc8w_4x8c1__neon.h, the
 * IGEMM's tile on one tap). Rows past mr alias the last real one. */
#include "qd8_f32_qc8w_4x8c1__neon.h"

void qd8_f32_qc8w_gemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                   const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                   const rl_f32_minmax_params *params) {
    const int8_t *in[MR];
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    rl_qd8_tile_rows(MR, mr, a, a_stride, c, c_stride, rows, in, out, rq);
    igemm_4x8c1(MR, nc, kc, 1, in, w, out, rq, params);
}
