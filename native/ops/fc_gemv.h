/* fc_gemv.h — a float32 FULLY_CONNECTED of one input row whose weights change between invokes (a training
 * step's trained layer, a gradient's product), in the order LiteRT's builtin kernel sums it (kernels'
 * f32_gemv_eigen_ref). conv_gemm.c's rl_use_gemm_fully_connected hands such ops here. */
#ifndef RILLET_FC_GEMV_H
#define RILLET_FC_GEMV_H

#include "ops.h"

/* Takes over the op (op->run, op->state): float32 input, weights and bias (any of them changing), one row. */
rl_status rl_use_fc_gemv(rl_plan *plan, rl_op *op, size_t units, size_t depth);

#endif
