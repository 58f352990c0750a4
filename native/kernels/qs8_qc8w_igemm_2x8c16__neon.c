/* qs8_qc8w_igemm_2x8c16__neon.c — int8 IGEMM (rows through an indirection buffer), per-channel int8 weights
 * without -128, 2 rows x 8 columns, kr 16, NEON on aarch64 without dot products: as qs8_qc8w_gemm_2x8c16__neon,
 * tap by tap (qs8_qc8w_mrx8c16__neon.h). Each tap's last 1-7 channels are read exactly, so any kc runs straight
 * from the input. On armv7 this file compiles to nothing. */
#if defined(__aarch64__)
#define RL_QS8_C16_NEON_MR 2
#include "qs8_qc8w_mrx8c16__neon.h"

void qs8_qc8w_igemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, int8_t *c, size_t c_stride,
                                const rl_qs8_requantization_params *params) {
    igemm(mr, nc, kc, ks, indirection, w, c, c_stride, params);
}
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_qs8_qc8w_igemm_2x8c16__neon_not_on_armv7;
#endif
