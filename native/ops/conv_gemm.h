/* conv_gemm.h — CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED on the micro-kernels (gemm.h, dwconv.h):
 * weights packed once at prepare, indirection buffers built once the arena is placed, the tile loop split
 * across the plan's threads. The float32 and int8 (per-channel int8 weights) paths share all of it. */
#ifndef RILLET_CONV_GEMM_H
#define RILLET_CONV_GEMM_H

#include "ops.h"

/* Below this many multiply-adds an op runs on the calling thread: waking the workers and waiting for them
 * costs about a microsecond on a 2-core machine, more than half of such an op (mobilenet_v2's 6x6 and 3x3
 * depthwise layers ran slower on 2 threads than on 1). */
#ifndef RL_PARALLEL_MIN_MACS
#define RL_PARALLEL_MIN_MACS 65536
#endif

/* One tile per thread would leave a thread idle when the other is slowed down; one per mr rows would make
 * the tile ranges' cache lines hot. About eight tiles per thread. */
#define RL_TILES_PER_THREAD 8

/* The plan's pool for an op of `work` multiply-adds (or comparable steps), NULL (the caller alone) below
 * RL_PARALLEL_MIN_MACS. */
static inline rl_threadpool *rl_pool_for(const rl_plan *plan, size_t work) {
    return work >= RL_PARALLEL_MIN_MACS ? plan->pool : NULL;
}

/* fn(context, row, 0, count, 1) over `rows` rows in tiles of whole rows, split across the plan's threads
 * (all on the caller when the op's `work` is below RL_PARALLEL_MIN_MACS): what the depthwise and pooling
 * drivers run. */
static inline void rl_parallelize_rows(const rl_plan *plan, rl_tile_2d_fn fn, void *context, size_t rows, size_t work) {
    rl_threadpool *pool = rl_pool_for(plan, work);
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    rl_parallelize_2d_tile_2d(pool, fn, context, rows, 1, pool ? (rows + want - 1) / want : rows, 1);
}

/* An element-wise op's work in rl_pool_for's units, per element: a vectorised int8 or float conversion or
 * binary costs about what 8 multiply-adds of a GEMM do (whisper's int8 MUL of 13.5M elements took 0.2 ns an
 * element, a DEQUANTIZE 0.3 ns), so ops of 8192 elements and more split. */
#define RL_ELEMENT_WORK 8
/* Element runs are cut at multiples of this many elements: every run but the last starts and ends on a whole
 * SIMD block of every path, so each element is computed by the same lanes (and the one tail by the same
 * scalar code) as in one call over the whole tensor, and results do not depend on the thread count. */
#define RL_ELEMENT_BLOCK 64

/* fn(context, first, 0, count, 1) over elements 0 .. count - 1 in runs of whole RL_ELEMENT_BLOCKs, split
 * across the plan's threads when count * work_per_element reaches RL_PARALLEL_MIN_MACS (one call on the
 * caller otherwise): the driver of element-wise ops that have no rows of their own. */
static inline void rl_parallelize_elements(const rl_plan *plan, rl_tile_2d_fn fn, void *context, size_t count,
                                           size_t work_per_element) {
    rl_threadpool *pool = rl_pool_for(plan, count * work_per_element);
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    const size_t blocks = (count + RL_ELEMENT_BLOCK - 1) / RL_ELEMENT_BLOCK;
    rl_parallelize_2d_tile_2d(pool, fn, context, count, 1, pool ? RL_ELEMENT_BLOCK * ((blocks + want - 1) / want) : count, 1);
}

/* fn(context, i, j, rows, columns) over an m x n output in tiles of whole mr-row blocks and, only when there are
 * too few rows to keep every thread busy, whole nr-column panels, split across the plan's threads (all on the
 * caller when `work` is below RL_PARALLEL_MIN_MACS): the GEMM and IGEMM drivers' split. */
static inline void rl_parallelize_gemm(const rl_plan *plan, rl_tile_2d_fn fn, void *context, size_t m, size_t n,
                                       size_t mr, size_t nr, size_t work) {
    rl_threadpool *pool = rl_pool_for(plan, work);
    const size_t threads = (size_t)rl_threadpool_threads(pool);
    size_t tile_i = m, tile_j = n;
    if (threads > 1) {
        const size_t want = RL_TILES_PER_THREAD * threads;
        const size_t row_tiles = (m + mr - 1) / mr;
        tile_i = mr * ((row_tiles + want - 1) / want);
        const size_t tiles_i = (m + tile_i - 1) / tile_i;
        if (tiles_i < want) {
            const size_t panels = (n + nr - 1) / nr, per_row = (want + tiles_i - 1) / tiles_i;
            tile_j = nr * ((panels + per_row - 1) / per_row);
        }
    }
    rl_parallelize_2d_tile_2d(pool, fn, context, m, n, tile_i, tile_j);
}

/* The input pixel that tap (fy, fx) of output pixel (b, oy, ox) reads, or `zero` where it falls in the
 * padding: what an indirection buffer holds. */
static inline const void *rl_window_tap(const rl_window_geometry *g, const char *input, size_t pixel_bytes,
                                        const void *zero, size_t b, int32_t oy, int32_t ox, int32_t fy, int32_t fx) {
    const int32_t iy = oy * g->stride_h - g->pad_h + fy * g->dilation_h;
    const int32_t ix = ox * g->stride_w - g->pad_w + fx * g->dilation_w;
    if (iy < 0 || iy >= g->in_h || ix < 0 || ix >= g->in_w) return zero;
    return input + ((b * (size_t)g->in_h + (size_t)iy) * (size_t)g->in_w + (size_t)ix) * pixel_bytes;
}

/* An int8 op's requantization for the micro-kernels, from what its prepare computed. */
static inline rl_qs8_requantization_params rl_qs8_requantization_of(const rl_quant_params *q) {
    const rl_qs8_requantization_params params = {
        .min_less_zero_point = (float)(q->act_min - q->output_zero_point),
        .max_less_zero_point = (float)(q->act_max - q->output_zero_point),
        .output_zero_point = q->output_zero_point,
        .input_zero_point = q->input_zero_point[0],
    };
    return params;
}

/* Each takes over the op (op->run, op->setup, op->state) when its case has a micro-kernel driver: constant
 * weights and bias, float32 or full int8 (not hybrid), depth multiplier 1 for depthwise; otherwise it
 * leaves the op on its whole-op reference and returns RL_OK. Called at the end of the op's prepare, after
 * its validation (and, for int8, with the per-channel requantization scales in op->scratch and the zero
 * points and clamp in op->prep.q). */
rl_status rl_use_gemm_conv2d(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
rl_status rl_use_gemm_fully_connected(rl_plan *plan, rl_op *op, int64_t rows, int32_t units, int32_t depth);
rl_status rl_use_dwconv(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
/* MAX_POOL_2D and AVERAGE_POOL_2D through the pooling micro-kernels (pool_driver.c), for windows of up to 64
 * taps; after the op's validation (int8: the clamp in op->prep.q). */
rl_status rl_use_pool_driver(rl_plan *plan, rl_op *op, const rl_window_geometry *g);

#endif
