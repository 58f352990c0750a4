/* batch_matmul_gemm.h — float32 BATCH_MATMUL on the GEMM micro-kernels (batch_matmul_gemm.c). */
#ifndef RILLET_BATCH_MATMUL_GEMM_H
#define RILLET_BATCH_MATMUL_GEMM_H

#include "ops.h"

/* Takes over a float32 BATCH_MATMUL of any shape (batch dims broadcast, adj_x, adj_y; y constant, packed
 * here, or not, packed at every invoke into arena scratch) after rl_prepare_batch_matmul's validation
 * (op->prep.bc holds the broadcast batches); m, k, n the product's. Other dtypes, and products with nothing
 * to compute, stay on the reference (RL_OK). */
rl_status rl_use_gemm_batch_matmul(rl_plan *plan, rl_op *op, int32_t m, int32_t k, int32_t n);

#endif
