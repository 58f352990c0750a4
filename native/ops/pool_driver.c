/* pool_driver.c — MAX_POOL_2D and AVERAGE_POOL_2D (float32 and int8): the loop over output pixels, which
 * gathers each window's in-bounds input pixels and hands them to a pooling micro-kernel (kernels/pool.h).
 * Output rows are split across the plan's threads. */
#include "conv_gemm.h"
#include "pool.h"

typedef struct {
    rl_window_geometry g;
    int32_t int8, max_pool;
    int32_t q_min, q_max; /* int8 clamp, in the output's integers */
    rl_qs8_pool_fn qs8_pool; /* the plan's path's int8 max or average pooling micro-kernel */
    const char *input;
    char *output;
} rl_pool_state;

/* Windows up to this many taps (8x8) keep their pointers on the stack; larger ones (a global pool over a big
 * image) stay on the whole-op reference loops. */
#define RL_POOL_MAX_TAPS 64

RL_STATIC_ASSERT(sizeof(rl_pool_state) <= 256, "rl_pool_state is a small header");

static void pool_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_pool_state *st = (const rl_pool_state *)context;
    const rl_window_geometry *g = &st->g;
    const size_t pixel_bytes = (size_t)g->in_c * (st->int8 ? 1 : sizeof(float));
    const void *taps[RL_POOL_MAX_TAPS];
    for (size_t r = row; r < row + rows; ++r) {
        const size_t b = r / (size_t)g->out_h;
        const int32_t oy = (int32_t)(r % (size_t)g->out_h);
        for (int32_t ox = 0; ox < g->out_w; ++ox) {
            size_t n = 0;
            for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                const int32_t iy = oy * g->stride_h - g->pad_h + fy;
                if (iy < 0 || iy >= g->in_h) continue;
                for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                    const int32_t ix = ox * g->stride_w - g->pad_w + fx;
                    if (ix < 0 || ix >= g->in_w) continue;
                    taps[n++] = st->input + ((b * (size_t)g->in_h + (size_t)iy) * (size_t)g->in_w + (size_t)ix) * pixel_bytes;
                }
            }
            char *out = st->output + ((size_t)r * (size_t)g->out_w + (size_t)ox) * pixel_bytes;
            const size_t c = (size_t)g->in_c;
            if (st->int8)
                st->qs8_pool(c, n, (const int8_t *const *)taps, (int8_t *)out, st->q_min, st->q_max);
            else
                (st->max_pool ? f32_maxpool__scalar : f32_avgpool__scalar)(c, n, (const float *const *)taps,
                                                                            (float *)out, g->act_min, g->act_max);
        }
    }
}

static rl_status run_pool(rl_plan *plan, rl_op *op) {
    rl_pool_state *st = (rl_pool_state *)op->state;
    st->input = (const char *)rl_input(plan, op, 0)->data;
    st->output = (char *)rl_output(plan, op, 0)->data;
    const size_t rows = (size_t)st->g.batch * (size_t)st->g.out_h;
    /* A small pool costs less than waking the workers: measured on cnn_small's 13x13x8 pools. */
    rl_threadpool *pool = rl_pool_for(
        plan, rows * (size_t)st->g.out_w * (size_t)st->g.in_c * (size_t)st->g.filter_h * (size_t)st->g.filter_w);
    rl_parallelize_2d_tile_2d(pool, pool_rows, st, rows, 1, rl_rows_per_tile(rows, pool), 1);
    return RL_OK;
}

rl_status rl_use_pool_driver(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    if ((size_t)g->filter_h * (size_t)g->filter_w > RL_POOL_MAX_TAPS || g->in_c <= 0) return RL_OK;
    rl_pool_state *st = (rl_pool_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->g = *g;
    st->int8 = rl_input(plan, op, 0)->dtype == RL_INT8;
    st->max_pool = op->code == RL_OP_MAX_POOL_2D;
    st->q_min = op->prep.q.act_min;
    st->q_max = op->prep.q.act_max;
    st->qs8_pool = st->max_pool ? plan->kernels->qs8_pool.maxpool : plan->kernels->qs8_pool.avgpool;
    op->run = run_pool;
    return RL_OK;
}
