/* qs8_qc8w_gemm_2x8c16__neon.c — int8 GEMM, per-channel int8 weights without -128, 2 rows x 8 columns, kr 16, NEON
 * on aarch64 without dot products (the Cortex-A53 and A72): pairs of widening multiplies summed pairwise into
 * int32, then the fp32 requantization, bit for bit with the scalar kernel. qs8_qc8w_mrx8c16__neon.h, the template
 * of these tiles, says why this shape and why only without -128. On armv7 this file compiles to nothing (it keeps
 * qs8_qc8w_gemm_4x8c1__neon). */
#if defined(__aarch64__)
#define RL_QS8_C16_NEON_MR 2
#include "qs8_qc8w_mrx8c16__neon.h"

void qs8_qc8w_gemm_2x8c16__neon(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                               int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    gemm(mr, nc, kc, a, a_stride, w, c, c_stride, params);
}
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_qs8_qc8w_gemm_2x8c16__neon_not_on_armv7;
#endif
