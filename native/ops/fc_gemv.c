/* fc_gemv.c — a float32 FULLY_CONNECTED of one input row whose weights are not constant, read in place: LiteRT's
 * default interpreter leaves such an op to TFLite's builtin kernel (XNNPACK takes only constant weights), whose
 * order of sums f32_gemv_eigen_ref follows (f32_gemv_eigen__avx2 on x86, the same bits), so a training step's losses agree with LiteRT's to the last bits
 * where the packed GEMM (XNNPACK's order, right for constant weights) drifted. No packing at every invoke
 * either: the weights stream once. Output channels split across the plan's threads; each output's sum is the
 * kernel's whatever the tile, so results do not depend on the thread count. See fc_gemv.h. */
#include <string.h>

#include "conv_gemm.h"
#include "fc_gemv.h"

/* Output channels a thread tile holds at least: a few cache lines of outputs, so tiles do not share them. */
#define RL_FC_GEMV_MIN_TILE 16

typedef struct {
    void (*gemv)(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w, const float *bias,
                 float *y, float act_min, float act_max); /* the plan's path's: the reference's bits on every path */
    size_t n, kc, tile_n;
    float act_min, act_max;
    const float *x, *w, *bias;
    float *y;
} rl_fc_gemv_state;

static void gemv_tile(void *context, size_t i, size_t j, size_t rows, size_t count) {
    const rl_fc_gemv_state *st = (const rl_fc_gemv_state *)context;
    (void)i, (void)rows;
    st->gemv(st->n, j, count, st->kc, st->x, st->w, st->bias, st->y, st->act_min, st->act_max);
}

static rl_status run_gemv(rl_plan *plan, rl_op *op) {
    rl_fc_gemv_state *st = (rl_fc_gemv_state *)op->state;
    const rl_tensor *bias = rl_input(plan, op, 2);
    st->x = (const float *)rl_input(plan, op, 0)->data;
    st->w = (const float *)rl_input(plan, op, 1)->data;
    st->bias = bias ? (const float *)bias->data : NULL;
    st->y = (float *)rl_output(plan, op, 0)->data;
    rl_threadpool *pool = rl_pool_for(plan, st->n * st->kc);
    rl_parallelize_2d_tile_2d(pool, gemv_tile, st, 1, st->n, 1, pool ? st->tile_n : st->n);
    return RL_OK;
}

rl_status rl_use_fc_gemv(rl_plan *plan, rl_op *op, size_t units, size_t depth) {
    rl_fc_gemv_state *st = (rl_fc_gemv_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    memset(st, 0, sizeof *st);
    st->gemv = plan->kernels->f32_gemv_eigen;
    st->n = units;
    st->kc = depth;
    st->act_min = op->prep.act_min;
    st->act_max = op->prep.act_max;
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(plan->pool);
    st->tile_n = (units + want - 1) / want;
    if (st->tile_n < RL_FC_GEMV_MIN_TILE) st->tile_n = RL_FC_GEMV_MIN_TILE;
    op->packed_weight_bytes = 0;
    op->run = run_gemv;
    op->setup = NULL;
    return RL_OK;
}
