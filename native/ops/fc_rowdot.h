/* fc_rowdot.h — FULLY_CONNECTED of a few input rows on the row-dot micro-kernels (kernels/rowdot.h), reading the
 * model's weights in place: no packed copy. conv_gemm.c's rl_use_gemm_fully_connected hands such ops here. */
#ifndef RILLET_FC_ROWDOT_H
#define RILLET_FC_ROWDOT_H

#include "ops.h"

/* Up to this many input rows the row-dot kernels run instead of the packed GEMM. Batch-1 FULLY_CONNECTED
 * streams its weights once whichever runs it, and a row-dot block of weight rows is reread from cache for the
 * other input rows; past a few rows the GEMM's register tile (6 or 7 rows by 16 columns) does fewer loads per
 * multiply-add. Chosen by measurement (bench/bench_fc_rowdot.py). */
#ifndef RL_FC_ROWDOT_MAX_ROWS
#define RL_FC_ROWDOT_MAX_ROWS 4
#endif

/* Takes over the op (op->run, op->state) for float32 or full int8 (per-channel int8 weights) with constant
 * weights and bias and 1..RL_FC_ROWDOT_MAX_ROWS rows; int8 after rl_prepare_fully_connected_quantized (the
 * requantization scales in op->scratch, the zero points and clamp in op->prep.q). */
rl_status rl_use_fc_rowdot(rl_plan *plan, rl_op *op, size_t rows, size_t units, size_t depth, int32_t int8);

#endif
