/* qd8_f32_qc8w_gemm_4x16c4__neondot.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights,
 * float32 out), 4 rows x 16 columns, kr 4, aarch64 with the dot-product instructions (Cortex-A76 / Pi 5 and
 * later): the int8 kernel's sdot k loop between a start of -zero_point * sum(w) and the float epilogue
 * (qd8_f32_qc8w_4x16c4__neondot.h, the IGEMM's panel loop on one tap). 16 products per sdot where the 4x8c1 NEON
 * kernel's vmlal does 4. Rows past mr alias the last real one; one row (a FULLY_CONNECTED on one token) runs the same
 * loop on one row's accumulators, as the int8 kernel does, rather than four rows' sdots for one. */
#include "qd8_f32_qc8w_4x16c4__neondot.h"

RL_QD8_GEMM_ONE_ROW_OR_TILE(qd8_f32_qc8w_gemm_4x16c4__neondot, MR, gemm_rows)
