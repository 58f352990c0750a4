/* reduce_sumsq.c — a float MEAN or SUM over contiguous rows whose input is the rows' squares, written by an op that
 * nothing else reads: MUL(x, x) (a torch-form layer norm's variance, an RMS norm's mean square) or
 * SQUARED_DIFFERENCE(x, m) with one m per row (the layer norm TensorFlow and litert-torch write: x minus its row's
 * mean). The two ops wrote a [rows, C] tensor for the reduction to read back (a torch-form layer norm ran at
 * 1.16-1.18x LiteRT+XNNPACK's time at ViT and Whisper sizes); fused, each row is one pass of f32_rsumsqdiff, which
 * rounds each square before adding it in rsum's lanes and order (f32_rsum.h): the two ops' bits.
 *
 * The pass runs as the squaring op, at its step, writing the row sums into the first `rows` floats of its own
 * output, and the reduction then scales them: the squaring op's inputs live to its step only (a lifetime the
 * reduction's step would outrun), while its output lives from its step to the reduction's. */
#include <math.h>

#include "bands.h"
#include "conv_gemm.h" /* rl_parallelize_rows, RL_ELEMENT_WORK */
#include "ops.h"

typedef struct {
    size_t rows, row;        /* the reduction's rows, each `row` contiguous values of x */
    int32_t x_input;         /* the squaring op's operand x */
    int32_t value_input;     /* SQUARED_DIFFERENCE: its one-value-per-row operand m; MUL: -1 (m = 0) */
} rl_f32_sumsq_state;

/* Rows [first, first + count) of the squaring op: their sums of squares into its output's first floats. */
static void sum_squares_of_rows(const rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_f32_sumsq_state *st = (const rl_f32_sumsq_state *)op->state;
    const float *x = (const float *)plan->tensors[op->inputs[st->x_input]].data;
    const float *m = st->value_input >= 0 ? (const float *)plan->tensors[op->inputs[st->value_input]].data : NULL;
    float *sums = (float *)plan->tensors[op->outputs[0]].data;
    for (size_t r = first; r < first + count; ++r)
        sums[r] = plan->kernels->f32_vexp.rsumsqdiff(st->row, x + r * st->row, m ? m[r] : 0.0f);
}

typedef struct {
    const rl_plan *plan;
    const rl_op *op;
} rl_f32_sumsq_job;

static void sum_squares_tile(void *context, size_t first, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_f32_sumsq_job *job = (const rl_f32_sumsq_job *)context;
    sum_squares_of_rows(job->plan, job->op, first, count);
}

/* Each row's sum is its own (any split gives the same bits): split by rows as the reduction's slices were. */
static rl_status run_sum_squares(rl_plan *plan, rl_op *op) {
    const rl_f32_sumsq_state *st = (const rl_f32_sumsq_state *)op->state;
    rl_f32_sumsq_job job = {.plan = plan, .op = op};
    rl_parallelize_rows(plan, sum_squares_tile, &job, st->rows, st->rows * st->row * RL_ELEMENT_WORK);
    return RL_OK;
}

/* Banded execution (bands.h): pixel p is row p (offered only where a row is the last axis). */
static void run_sum_squares_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    sum_squares_of_rows(plan, op, first, count);
}

/* The reduction's outputs [first, first + count): the row sums times 1 / the count, as f32_reduce_slices. */
static void scale_sums(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const float *sums = (const float *)rl_input(plan, op, 0)->data;
    float *y = (float *)rl_output(plan, op, 0)->data;
    const float divisor = op->prep.divisor;
    for (size_t o = first; o < first + count; ++o) y[o] = divisor != 1.0f ? sums[o] * (1.0f / divisor) : sums[o];
}

static rl_status run_scale_sums(rl_plan *plan, rl_op *op) {
    scale_sums(plan, op, 0, (size_t)op->prep.count);
    return RL_OK;
}

static void run_scale_sums_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    scale_sums(plan, op, first, count);
}

/* The op writing `tensor`, when it comes before `op`, is not folded or dynamic, and nothing but `op` reads its
 * output (no other op, no graph output); else NULL. */
static rl_op *lone_producer(rl_plan *plan, const rl_op *op, int32_t tensor) {
    rl_op *producer = NULL;
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *other = &plan->ops[i];
        if (other == op) continue;
        for (int32_t k = 0; k < other->n_inputs; ++k)
            if (other->inputs[k] == tensor) return NULL;
        if (other < op && other->n_outputs == 1 && other->outputs[0] == tensor) producer = other;
    }
    for (int32_t k = 0; k < plan->n_graph_outputs; ++k)
        if (plan->graph_outputs[k] == tensor) return NULL;
    return producer && !producer->folded && !producer->dynamic ? producer : NULL;
}

static int is_f32(const rl_plan *plan, int32_t tensor) {
    return tensor >= 0 && plan->tensors[tensor].dtype == RL_FLOAT32;
}

/* Which operand of the squaring op is x and which its row values (-1: MUL(x, x)), for rows of `row` values of its
 * output; 0 when the op squares nothing this pass computes. */
static int squared_operands(rl_plan *plan, const rl_op *producer, size_t rows, size_t row, int32_t *x_input,
                            int32_t *value_input) {
    if (producer->n_inputs != 2 || producer->n_outputs != 1 || !is_f32(plan, producer->inputs[0]) ||
        !is_f32(plan, producer->inputs[1]) || !is_f32(plan, producer->outputs[0]))
        return 0;
    const int64_t count = rl_shape_count(&rl_output(plan, producer, 0)->shape);
    if (producer->code == RL_OP_MUL) {
        /* x times itself, unclamped (a fused activation would clamp each square) */
        const rl_broadcast *bc = &producer->prep.bc;
        if (producer->inputs[0] != producer->inputs[1] ||
            rl_shape_count(&rl_input(plan, producer, 0)->shape) != count || bc->act_min != -INFINITY ||
            bc->act_max != INFINITY)
            return 0;
        *x_input = 0;
        *value_input = -1;
        return 1;
    }
    if (producer->code != RL_OP_SQUARED_DIFFERENCE) return 0;
    const rl_shape *out = &rl_output(plan, producer, 0)->shape;
    const size_t last = out->rank > 0 ? (size_t)out->dims[out->rank - 1] : 1;
    if (row != last) return 0; /* one m per row of the last axis */
    for (int32_t xi = 0; xi < 2; ++xi) {
        const rl_shape *x = &rl_input(plan, producer, xi)->shape, *m = &rl_input(plan, producer, 1 - xi)->shape;
        /* x the output's shape; m one value per row, in the rows' order ([.., R, 1]: a broadcast that keeps the
         * output's count of rows keeps their order) */
        if (rl_shape_count(x) != count || (size_t)rl_shape_count(m) != rows) continue;
        if (rows > 1 && row > 1 && (m->rank < 1 || m->dims[m->rank - 1] != 1)) continue;
        *x_input = xi; /* (m - x)^2 is (x - m)^2: the difference only changes sign */
        *value_input = 1 - xi;
        return 1;
    }
    return 0;
}

rl_status rl_use_f32_sum_of_squares(rl_plan *plan, rl_op *op, size_t rows, size_t row) {
    /* preserve_all: a user reading every tensor after invoke sees the squares too, so both ops run */
    if (plan->preserve_all || op->dynamic || rows * row == 0 || op->n_inputs < 1 || op->inputs[0] < 0) return RL_OK;
    rl_op *producer = lone_producer(plan, op, op->inputs[0]);
    int32_t x_input, value_input;
    if (!producer || !squared_operands(plan, producer, rows, row, &x_input, &value_input)) return RL_OK;
    rl_f32_sumsq_state *st = (rl_f32_sumsq_state *)rl_op_state(plan, producer, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    *st = (rl_f32_sumsq_state){.rows = rows, .row = row, .x_input = x_input, .value_input = value_input};
    producer->run = run_sum_squares;
    /* Its bands are now rows of the last axis (a same-shape MUL offered chunks of elements), each read whole from
     * x's row and m's value for it; a reduction over more than the last axis runs op by op. */
    producer->run_rows = NULL;
    producer->band_chunks = 0;
    producer->band_whole_rows = 0;
    producer->band_whole_inputs = 0;
    producer->begin_rows = NULL;
    producer->run_rows_scattered = NULL;
    producer->end_rows = NULL;
    const rl_tensor *input = rl_input(plan, op, 0);
    const int by_last_axis = input->shape.rank > 0 && row == (size_t)input->shape.dims[input->shape.rank - 1];
    if (by_last_axis) rl_offer_pixel_rows(producer, rl_output(plan, producer, 0), run_sum_squares_rows);
    op->run = run_scale_sums;
    op->run_rows = NULL;
    if (by_last_axis) rl_offer_pixel_rows(op, input, run_scale_sums_rows);
    return RL_OK;
}
