/* qdu8_f32_qc8w_gemm_8x16c4__avx512vnni.c — qd8_f32_qc8w_gemm_8x16c4__avx512vnni on rows quantized with 128 added
 * to every byte (f32_qdu8_quantize__avx512: q ^ 0x80, unsigned), which vpdpbusd multiplies as they are: each
 * row's 4 bytes are broadcast by a load alone (vpbroadcastd from memory takes no vector ALU port), where the
 * signed kernel's vpxord with a broadcast operand is a load and a vector op; a step of 8 rows is 8 vpdpbusd on
 * the vector units instead of 8 vpdpbusd and 8 vpxord. The sums, the zero-point start and the epilogue are the
 * signed kernel's, so the same bits (qd8_f32_qc8w_mrx16c4__avx512vnni.h). */
#define RL_QD8_VNNI_MR 8
#include "qd8_f32_qc8w_mrx16c4__avx512vnni.h"

void qdu8_f32_qc8w_gemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {
    gemm_mrx16c4(mr, nc, kc, a, a_stride, w, c, c_stride, rows, params, 1);
}
