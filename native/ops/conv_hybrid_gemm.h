/* conv_hybrid_gemm.h — hybrid (float32 activations, per-channel int8 weights) CONV_2D and FULLY_CONNECTED on
 * the qd8 micro-kernels (qd8_gemm.h): weights packed once at prepare, the input quantized per row or per
 * image into arena scratch at each invoke, then GEMM or IGEMM tiles split across the plan's threads. */
#ifndef RILLET_CONV_HYBRID_GEMM_H
#define RILLET_CONV_HYBRID_GEMM_H

#include "ops.h"

/* Each takes over the op (op->run, op->setup, op->state) when its weights and bias are constants, after the
 * op's hybrid prepare (the weight scales in op->scratch); otherwise it leaves the op on its whole-op reference
 * and returns RL_OK. per_pixel: each output pixel's input quantized on its own (a 1x1 stride-1 convolution as
 * XNNPACK runs it, a GEMM on the input's pixels); else each image (an IGEMM). */
rl_status rl_use_qd8_gemm_conv2d(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int per_pixel);
/* Each of `rows` rows quantized on its own. */
rl_status rl_use_qd8_gemm_fully_connected(rl_plan *plan, rl_op *op, int64_t rows, int32_t units, int32_t depth,
                                          float act_min, float act_max);
/* Hybrid BATCH_MATMUL with a constant y, one matrix for every product, x not transposed: each row of x
 * quantized on its own (a GEMM on x's rows). */
rl_status rl_use_qd8_gemm_batch_matmul(rl_plan *plan, rl_op *op, int32_t m, int32_t k, int32_t n);
/* Hybrid DEPTHWISE_CONV_2D with depth multiplier 1 and constant weights on the qd8 depthwise micro-kernels
 * (dwconv_hybrid.c), TFLite's EvalHybridPerChannel arithmetic; otherwise it leaves the op on the reference. */
rl_status rl_use_qd8_dwconv(rl_plan *plan, rl_op *op, const rl_window_geometry *g);

#endif
