/* qd8_f32_qc8w_igemm_2x8c16__neon.c — hybrid IGEMM (int8 rows through an indirection buffer, per-channel int8
 * weights without -128, float32 out), 2 rows x 8 columns, kr 16, NEON on aarch64 without dot products: as the
 * GEMM, the k loop walking the ks taps' rows in turn (qd8_f32_qc8w_2x8c16__neon.h). On armv7 this file compiles to
 * nothing. */
#if defined(__aarch64__)
#include "qd8_f32_qc8w_2x8c16__neon.h"

void qd8_f32_qc8w_igemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                     const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                     const rl_f32_minmax_params *params) {
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    rl_qd8_tile_rows(MR, mr, NULL, 0, c, c_stride, rows, NULL, out, rq);
    if (mr == 1)
        qd8_igemm_rows(1, mr, nc, kc, ks, indirection, w, out, rq, params);
    else
        qd8_igemm_rows(MR, mr, nc, kc, ks, indirection, w, out, rq, params);
}
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_qd8_f32_qc8w_igemm_2x8c16__neon_not_on_armv7;
#endif
