/* conv_gemm.h — CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on the micro-kernels (gemm.h, dwconv.h):
 * weights packed once at prepare, indirection buffers built once the arena is placed, the tile loop split
 * across the plan's threads. The float32 and int8 (per-channel int8 weights) paths share all of it. */
#ifndef RILLET_CONV_GEMM_H
#define RILLET_CONV_GEMM_H

#include "ops.h"

/* Below this many multiply-adds an op runs on the calling thread: waking the workers and waiting for them
 * costs about a microsecond on a 2-core machine, more than half of such an op (mobilenet_v2's 6x6 and 3x3
 * depthwise layers ran slower on 2 threads than on 1). */
#define RL_PARALLEL_MIN_MACS 65536

/* Each takes over the op (op->run, op->setup, op->state) when its case has a micro-kernel driver: constant
 * weights and bias, float32 or full int8 (not hybrid), depth multiplier 1 for depthwise; otherwise it
 * leaves the op on its whole-op reference and returns RL_OK. Called at the end of the op's prepare, after
 * its validation (and, for int8, with the per-channel requantization scales in op->scratch and the zero
 * points and clamp in op->prep.q). */
rl_status rl_use_gemm_conv2d(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
rl_status rl_use_gemm_fully_connected(rl_plan *plan, rl_op *op, int64_t rows, int32_t units, int32_t depth);
rl_status rl_use_dwconv(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
/* float32 BATCH_MATMUL of one product (no batch broadcasting; a transposed x is copied at each invoke), y
 * constant (packed at prepare) or not (packed at every invoke: the weights of a training step). */
rl_status rl_use_gemm_batch_matmul(rl_plan *plan, rl_op *op, int32_t m, int32_t k, int32_t n);
/* MAX_POOL_2D and AVERAGE_POOL_2D through the pooling micro-kernels (pool_driver.c), for windows of up to 64
 * taps; after the op's validation (int8: the clamp in op->prep.q). */
rl_status rl_use_pool_driver(rl_plan *plan, rl_op *op, const rl_window_geometry *g);

#endif
