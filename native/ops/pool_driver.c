/* pool_driver.c — MAX_POOL_2D and AVERAGE_POOL_2D (float32 and int8): the loop over output pixels, each one
 * pooling micro-kernel call (kernels/pool.h) over its window's input pixels. Which pixels those are is worked
 * out once the arena is placed, as XNNPACK's indirection buffers: per output pixel, the pointers to its
 * in-bounds taps and their count (windows at the border have fewer); float average pooling instead takes the
 * whole window in XNNPACK's order, padding pointing at zeros, and 1 / the in-bounds count. Output rows are
 * split across the plan's threads. */
#include "conv_gemm.h"
#include "pool.h"

typedef struct {
    rl_window_geometry g;
    int32_t int8, max_pool;
    int32_t q_min, q_max;    /* int8 clamp, in the output's integers */
    rl_qs8_pool_fn qs8_pool; /* the plan's path's int8 max or average pooling micro-kernel */
    rl_f32_pool_fn f32_maxpool;    /* and its float32 ones */
    rl_f32_avgpool_fn f32_avgpool;
    size_t taps;              /* filter_h * filter_w: indirection entries per output pixel */
    const void **indirection; /* per output pixel, its in-bounds taps' input pixels (the first counts[p]); float
                               * average pooling: its whole window, x-major, padding pointing at `zeros` */
    uint8_t *counts;          /* per output pixel, how many of its taps are in bounds (not float average) */
    float *scales;            /* float average pooling: per output pixel, 1.0f / its in-bounds count */
    const float *zeros;       /* float average pooling: in_c zeros, what a tap in the padding reads */
    char *output;
} rl_pool_state;

/* Windows up to this many taps (8x8) get an indirection buffer; larger ones stay on the whole-op reference
 * loops, except a float average pool whose whole indirection has at most RL_POOL_MAX_WINDOW_ENTRIES entries
 * (a global pool: one window over 64x64 pixels is 4096). */
#define RL_POOL_MAX_TAPS 64
#define RL_POOL_MAX_WINDOW_ENTRIES 65536

RL_STATIC_ASSERT(sizeof(rl_pool_state) <= 256, "rl_pool_state is a small header");

static void pool_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_pool_state *st = (const rl_pool_state *)context;
    const rl_window_geometry *g = &st->g;
    const size_t c = (size_t)g->in_c, pixel_bytes = c * (st->int8 ? 1 : sizeof(float));
    const size_t first = row * (size_t)g->out_w, end = (row + rows) * (size_t)g->out_w;
    for (size_t p = first; p < end; ++p) {
        const void *const *taps = st->indirection + p * st->taps;
        char *out = st->output + p * pixel_bytes;
        if (st->int8)
            st->qs8_pool(c, st->counts[p], (const int8_t *const *)taps, (int8_t *)out, st->q_min, st->q_max);
        else if (st->max_pool)
            st->f32_maxpool(c, st->counts[p], (const float *const *)taps, (float *)out, g->act_min, g->act_max);
        else
            st->f32_avgpool(c, st->taps, (const float *const *)taps, st->scales[p], (float *)out, g->act_min,
                            g->act_max);
    }
}

static rl_status run_pool(rl_plan *plan, rl_op *op) {
    rl_pool_state *st = (rl_pool_state *)op->state;
    st->output = (char *)rl_output(plan, op, 0)->data;
    const size_t rows = (size_t)st->g.batch * (size_t)st->g.out_h;
    /* A small pool costs less than waking the workers: measured on cnn_small's 13x13x8 pools. */
    rl_parallelize_rows(plan, pool_rows, st, rows,
                        rows * (size_t)st->g.out_w * (size_t)st->g.in_c * (size_t)st->g.filter_h * (size_t)st->g.filter_w);
    return RL_OK;
}

/* Each output pixel's in-bounds taps, row by row of the window (the order the int8 kernels' sums and the
 * reference loops take them in); for float average pooling, every tap column by column (XNNPACK's order, which
 * its sums follow) and the in-bounds count's reciprocal. */
static rl_status setup_pool_indirection(rl_plan *plan, rl_op *op) {
    rl_pool_state *st = (rl_pool_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const char *input = (const char *)rl_input(plan, op, 0)->data;
    const size_t pixel_bytes = (size_t)g->in_c * (st->int8 ? 1 : sizeof(float));
    size_t p = 0;
    for (size_t b = 0; b < (size_t)g->batch; ++b)
        for (int32_t oy = 0; oy < g->out_h; ++oy)
            for (int32_t ox = 0; ox < g->out_w; ++ox, ++p) {
                const void **taps = st->indirection + p * st->taps;
                size_t n = 0;
                if (st->scales) {
                    for (int32_t fx = 0; fx < g->filter_w; ++fx)
                        for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                            const void *tap = rl_window_tap(g, input, pixel_bytes, NULL, b, oy, ox, fy, fx);
                            n += tap != NULL;
                            taps[fx * g->filter_h + fy] = tap ? tap : st->zeros;
                        }
                    st->scales[p] = n ? 1.0f / (float)n : 0.0f;
                    continue;
                }
                for (int32_t fy = 0; fy < g->filter_h; ++fy)
                    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                        const void *tap = rl_window_tap(g, input, pixel_bytes, NULL, b, oy, ox, fy, fx);
                        if (tap) taps[n++] = tap;
                    }
                st->counts[p] = (uint8_t)n;
            }
    return RL_OK;
}

rl_status rl_use_pool_driver(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const size_t taps = (size_t)g->filter_h * (size_t)g->filter_w;
    const size_t pixels = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
    const int int8 = rl_input(plan, op, 0)->dtype == RL_INT8, max_pool = op->code == RL_OP_MAX_POOL_2D;
    const int f32_average = !int8 && !max_pool;
    const int fits = taps <= RL_POOL_MAX_TAPS || (f32_average && pixels * taps <= RL_POOL_MAX_WINDOW_ENTRIES);
    if (!fits || taps == 0 || g->in_c <= 0 || pixels == 0 || g->dilation_h != 1 || g->dilation_w != 1)
        return RL_OK;
    const size_t sizes[5] = {sizeof(rl_pool_state), pixels * taps * sizeof(void *), f32_average ? 0 : pixels,
                             f32_average ? pixels * sizeof(float) : 0, f32_average ? (size_t)g->in_c * sizeof(float) : 0};
    void *parts[5];
    rl_pool_state *st = (rl_pool_state *)rl_op_state_parts(plan, op, 5, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    st->g = *g;
    st->int8 = int8;
    st->max_pool = max_pool;
    st->q_min = op->prep.q.act_min;
    st->q_max = op->prep.q.act_max;
    st->qs8_pool = st->max_pool ? plan->kernels->qs8_pool.maxpool : plan->kernels->qs8_pool.avgpool;
    st->f32_maxpool = plan->kernels->f32_pool.maxpool;
    st->f32_avgpool = plan->kernels->f32_pool.avgpool;
    st->taps = taps;
    st->indirection = (const void **)parts[1];
    st->counts = f32_average ? NULL : (uint8_t *)parts[2];
    st->scales = f32_average ? (float *)parts[3] : NULL;
    st->zeros = f32_average ? (const float *)parts[4] : NULL; /* op state starts zeroed */
    op->run = run_pool;
    op->setup = setup_pool_indirection;
    return RL_OK;
}
