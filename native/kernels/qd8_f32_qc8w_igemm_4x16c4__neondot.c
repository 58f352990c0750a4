/* qd8_f32_qc8w_igemm_4x16c4__neondot.c — hybrid IGEMM (int8 rows through an indirection buffer, per-channel int8
 * weights, float32 out), 4 rows x 16 columns, kr 4, aarch64 with the dot-product instructions: the GEMM's panel
 * loop with the k loop walking the ks taps' rows in turn (qd8_f32_qc8w_4x16c4__neondot.h). */
#include "qd8_f32_qc8w_4x16c4__neondot.h"

void qd8_f32_qc8w_igemm_4x16c4__neondot(size_t mr, size_t nc, size_t kc, size_t ks,
                                        const int8_t *const *indirection, const void *w, float *c, size_t c_stride,
                                        const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    rl_qd8_tile_rows(MR, mr, NULL, 0, c, c_stride, rows, NULL, out, rq);
    igemm_rows(MR, mr, nc, kc, ks, indirection, w, out, rq, params);
}
