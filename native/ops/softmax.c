/* softmax.c — float32 SOFTMAX over the last axis on the f32_vexp micro-kernels, rows split across the plan's
 * threads: each row's maximum, e^((x - max) * beta) stored and summed, then a multiply by 1 / sum, as XNNPACK
 * computes it (LiteRT's default Interpreter delegates float SOFTMAX to it when beta is 1, and each x86 path runs
 * the operations of XNNPACK's kernel for that CPU, so the same bits; on Arm rillet's e^z is x86's, within an ulp
 * or two of XNNPACK's aarch64 table kernel, as LiteRT's builtin kernel, which takes the other betas, is). A
 * row's values do not depend on which thread runs it. int8 SOFTMAX: activation_int8.c. */

#include "bands.h"
#include "conv_gemm.h"
#include "ops.h"

typedef struct {
    size_t depth;
    float beta;
    const float *x; /* set at each run: the arena may move between prepare and invoke */
    float *y;
    const rl_kernel_table *kernels;
} rl_softmax_state;

static void softmax_rows(void *context, size_t row, size_t j, size_t rows, size_t columns) {
    (void)j, (void)columns;
    const rl_softmax_state *st = (const rl_softmax_state *)context;
    const rl_f32_vexp_config *k = &st->kernels->f32_vexp;
    for (size_t r = row; r < row + rows; ++r) {
        const float *x = st->x + r * st->depth;
        float *y = st->y + r * st->depth;
        const float max = k->rmax(st->depth, x);
        const float scale = 1.0f / k->raddstoreexpminusmax(st->depth, x, max, st->beta, y);
        k->vscale(st->depth, y, scale, y);
    }
}

static rl_status run_softmax_f32(rl_plan *plan, rl_op *op) {
    rl_softmax_state *st = (rl_softmax_state *)op->state;
    st->x = (const float *)rl_input(plan, op, 0)->data;
    st->y = (float *)rl_output(plan, op, 0)->data;
    st->kernels = plan->kernels;
    const size_t rows = (size_t)op->prep.outer;
    if (rows == 0 || st->depth == 0) return RL_OK;
    /* about 16 steps (compare, exp's dozen operations, multiply) per value */
    rl_parallelize_rows(plan, softmax_rows, st, rows, rows * st->depth * 16);
    return RL_OK;
}

/* Banded execution (bands.h): output pixel p is the softmax of input row p alone. */
static void run_softmax_f32_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    rl_softmax_state st = *(const rl_softmax_state *)op->state;
    st.x = (const float *)rl_input(plan, op, 0)->data;
    st.y = (float *)rl_output(plan, op, 0)->data;
    st.kernels = plan->kernels;
    softmax_rows(&st, first, 0, count, 1);
}

/* After rl_prepare_same_shape_f32 has set op->prep.outer (rows) and op->prep.inner (the last axis). */
rl_status rl_prepare_softmax_f32(rl_plan *plan, rl_op *op) {
    rl_softmax_state *st = (rl_softmax_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->depth = (size_t)op->prep.inner;
    st->beta = op->params.softmax.beta;
    op->run = run_softmax_f32;
    if (st->depth > 0) rl_offer_pixel_rows(op, rl_output(plan, op, 0), run_softmax_f32_rows);
    return RL_OK;
}
