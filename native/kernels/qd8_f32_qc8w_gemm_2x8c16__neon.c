/* qd8_f32_qc8w_gemm_2x8c16__neon.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights without
 * -128, float32 out), 2 rows x 8 columns, kr 16, NEON on aarch64 without dot products (the Cortex-A53 and A72):
 * the int8 2x8c16 tile's pairs of widening multiplies (3 instructions per 16 products, against the 4x8c1 tile's
 * extend-and-multiply-by-lane) and the float epilogue (qd8_f32_qc8w_2x8c16__neon.h), the scalar kernel's bits.
 * One row runs one row's accumulators. On armv7 this file compiles to nothing (it keeps the 4x8c1 tile). */
#if defined(__aarch64__)
#include "qd8_f32_qc8w_2x8c16__neon.h"

void qd8_f32_qc8w_gemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params) {
    const int8_t *in[MR];
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    rl_qd8_tile_rows(MR, mr, a, a_stride, c, c_stride, rows, in, out, rq);
    if (mr == 1)
        qd8_gemm_rows(1, nc, kc, in, w, out, rq, params);
    else
        qd8_gemm_rows(MR, nc, kc, in, w, out, rq, params);
}
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_qd8_f32_qc8w_gemm_2x8c16__neon_not_on_armv7;
#endif
