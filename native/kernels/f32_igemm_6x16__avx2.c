/* f32_igemm_6x16__avx2.c — float32 indirect GEMM (convolution through row pointers), 6x16, AVX2 + FMA: the
 * tile of f32_6x16__avx2.h over the ks taps' rows. */
#include "f32_6x16__avx2.h"

void f32_igemm_6x16__avx2(size_t mr, size_t nc, size_t kc, size_t ks, const float *const *indirection,
                          const float *w, float *c, size_t c_stride, const rl_f32_minmax_params *params) {
    igemm_6x16(mr, mr, nc, kc, ks, indirection, w, c, c_stride, params);
}
