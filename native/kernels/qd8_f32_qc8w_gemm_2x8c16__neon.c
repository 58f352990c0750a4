/* qd8_f32_qc8w_gemm_2x8c16__neon.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights without
 * -128, float32 out), 2 rows x 8 columns, kr 16, NEON on aarch64 without dot products (the Cortex-A53 and A72):
 * the int8 2x8c16 tile's pairs of widening multiplies (3 instructions per 16 products, against the 4x8c1 tile's
 * extend-and-multiply-by-lane) and the float epilogue (qd8_f32_qc8w_2x8c16__neon.h), the scalar kernel's bits.
 * One row runs one row's accumulators. On armv7 this file compiles to nothing (it keeps the 4x8c1 tile). */
#if defined(__aarch64__)
#include "qd8_f32_qc8w_2x8c16__neon.h"

RL_QD8_GEMM_ONE_ROW_OR_TILE(qd8_f32_qc8w_gemm_2x8c16__neon, MR, qd8_gemm_rows)
#else
/* ISO C wants a declaration in every file: armv7 builds this one too (build_config's neon paths). */
typedef int rl_qd8_f32_qc8w_gemm_2x8c16__neon_not_on_armv7;
#endif
