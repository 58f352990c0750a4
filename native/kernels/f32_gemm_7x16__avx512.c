/* f32_gemm_7x16__avx512.c — float32 GEMM, 7 rows by 16 columns per step, AVX-512F: the IGEMM template of one tap
 * (f32_igemm_7xnr__avx512.h). 16-column panels waste nothing on the 16..48-channel layers of mobile models; wider
 * layers take the 7x32 tile (f32_configs.c's wide config). */
#include "f32_igemm_7xnr__avx512.h"

void f32_gemm_7x16__avx512(size_t mr, size_t nc, size_t kc, const float *a, size_t a_stride, const float *w, float *c,
                           size_t c_stride, const rl_f32_minmax_params *params) {
    const float *rows[RL_F32_7XNR_MR];
    for (size_t i = 0; i < RL_F32_7XNR_MR; ++i) rows[i] = a + (i < mr ? i : 0) * a_stride; /* past mr: never read */
    rl_f32_igemm_7xnr__avx512(16, mr, nc, kc, 1, rows, w, c, c_stride, params);
}
