/* fc_rowdot.h — FULLY_CONNECTED of a few input rows on the row-dot micro-kernels (kernels/rowdot.h), reading the
 * model's weights in place: no packed copy. conv_gemm.c's rl_use_gemm_fully_connected hands such ops here. */
#ifndef RILLET_FC_ROWDOT_H
#define RILLET_FC_ROWDOT_H

#include "ops.h"

/* Up to this many input rows the row-dot kernels run instead of the packed GEMM. Batch 1 streams the weights
 * once whichever runs it, and the row-dot kernel skips the GEMM's idle tile rows: a 1280 -> 1001 layer took 0.66x
 * the GEMM's time in float32 and 0.26x in int8 at one row, 0.83x and 0.45x at two (AVX2, bench/bench_fc_rowdot.py).
 * From three rows on, each input row rereads the weight block from cache while the GEMM's 6- or 7-row register
 * tile loads each weight once for all rows: float32 took 1.28x the GEMM's time at three rows, int8 64 -> 64
 * 1.33x. */
#ifndef RL_FC_ROWDOT_MAX_ROWS
#define RL_FC_ROWDOT_MAX_ROWS 2
#endif

/* Takes over the op (op->run, op->state) for float32 or full int8 (per-channel int8 weights) with constant
 * weights and bias and 1..RL_FC_ROWDOT_MAX_ROWS rows; int8 after rl_prepare_fully_connected_quantized (the
 * requantization scales in op->scratch, the zero points and clamp in op->prep.q). */
rl_status rl_use_fc_rowdot(rl_plan *plan, rl_op *op, size_t rows, size_t units, size_t depth, int32_t int8);

#endif
