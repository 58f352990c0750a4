/* qdu8_f32_qc8w_igemm_8x16c4__avx512vnni.c — qd8_f32_qc8w_igemm_8x16c4__avx512vnni on an image quantized with 128
 * added to every byte (f32_qdu8_quantize_values__avx512) and padding taps at the zero point plus 128: the rows'
 * bytes are broadcast by a load alone, as in the qdu8 GEMM, where the signed kernel's vpxord is a vector op per
 * row and step beside each vpdpbusd (a hybrid CONV_2D's patch or stem convolution). The same k loop as every tile
 * of qd8_f32_qc8w_mrx16c4__avx512vnni.h, so the signed kernel's bits. */
#define RL_QD8_VNNI_MR 8
#include "qd8_f32_qc8w_mrx16c4__avx512vnni.h"

void qdu8_f32_qc8w_igemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks,
                                            const int8_t *const *indirection, const void *w, float *c,
                                            size_t c_stride, const rl_qd8_row_quantization *rows,
                                            const rl_f32_minmax_params *params) {
    igemm_mrx16c4(mr, nc, kc, ks, indirection, w, c, c_stride, rows, params, 1);
}
