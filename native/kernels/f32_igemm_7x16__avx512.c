/* f32_igemm_7x16__avx512.c — float32 indirect GEMM (convolution through row pointers), 7x16, AVX-512F
 * (f32_igemm_7xnr__avx512.h). */
#include "f32_igemm_7xnr__avx512.h"

void f32_igemm_7x16__avx512(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                            const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    rl_f32_igemm_7xnr__avx512(16, mr, nc, kc, ks, indirection, w, c, c_stride, params);
}
