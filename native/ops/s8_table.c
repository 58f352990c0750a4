/* s8_table.c — the driver shared by every int8 op computed as a 256-entry table over its input's bits
 * (activation_int8.c: RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH; unary_math_int8.c: RSQRT, SQRT, LOG,
 * EXP, ELU, GELU): the checks, the typed state the op's prepare fills the table of, and the run (s8_lut). */
#include "bands.h"
#include "conv_gemm.h" /* rl_parallelize_elements */
#include "ops.h"

RL_STATIC_ASSERT(sizeof(rl_s8_table_state) <= 512, "rl_s8_table_state is a small struct");

typedef struct {
    const rl_plan *plan;
    const int8_t *table, *x;
    int8_t *y;
} rl_s8_table_job;

static void table_elements(void *context, size_t first, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_s8_table_job *job = (const rl_s8_table_job *)context;
    job->plan->kernels->s8_lut((int64_t)count, job->table, job->x + first, job->y + first);
}

void rl_s8_lut_elements(rl_plan *plan, const int8_t *table, const int8_t *x, int8_t *y, int64_t count) {
    rl_s8_table_job job = {.plan = plan, .table = table, .x = x, .y = y};
    rl_parallelize_elements(plan, table_elements, &job, (size_t)count, RL_ELEMENT_WORK);
}

/* Inputs below lowest_input are refused (RSQRT, SQRT): in bands, checked after the segment (end_rows). */
static rl_status check_table_input(rl_plan *plan, rl_op *op) {
    const rl_s8_table_state *st = (const rl_s8_table_state *)op->state;
    const int8_t *x = (const int8_t *)rl_input(plan, op, 0)->data;
    if (st->lowest_input > -128)
        for (int64_t i = 0; i < st->count; ++i)
            if (x[i] < st->lowest_input)
                return rl_fail(plan, RL_INVALID, "int8 %s is only defined for values >= 0: input %lld is %d, below "
                               "the zero point %d", op->kind->name, (long long)i, x[i], st->lowest_input);
    return RL_OK;
}

void rl_s8_table_refuse_below(rl_op *op, rl_s8_table_state *st, int32_t lowest_input) {
    st->lowest_input = lowest_input;
    op->end_rows = check_table_input;
}

rl_status rl_s8_table_run(rl_plan *plan, rl_op *op) {
    const rl_s8_table_state *st = (const rl_s8_table_state *)op->state;
    const rl_status s = check_table_input(plan, op);
    if (s != RL_OK) return s;
    rl_s8_lut_elements(plan, st->table, (const int8_t *)rl_input(plan, op, 0)->data,
                       (int8_t *)rl_output(plan, op, 0)->data, st->count);
    return RL_OK;
}

/* Banded execution (bands.h): a chunk of the elements, each looked up alone. An activation after a convolution
 * (MobileNetV3's HARD_SWISH, EfficientNet's swish) then runs in the convolution's bands instead of as a job of
 * its own, one join less per activation. */
static void run_s8_table_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_s8_table_state *st = (const rl_s8_table_state *)op->state;
    const size_t pixel = rl_band_pixel_elements(op, rl_output(plan, op, 0));
    plan->kernels->s8_lut((int64_t)(count * pixel), st->table,
                          (const int8_t *)rl_input(plan, op, 0)->data + first * pixel,
                          (int8_t *)rl_output(plan, op, 0)->data + first * pixel);
}

rl_status rl_s8_table_prepare(rl_plan *plan, rl_op *op, rl_s8_table_state **state) {
    const rl_tensor *in = rl_input(plan, op, 0);
    rl_tensor *out = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_dtype(plan, out, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, in, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, out, "output")) != RL_OK) return s;
    rl_s8_table_state *st = (rl_s8_table_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->count = rl_shape_count(&in->shape);
    st->lowest_input = -128;
    out->shape = in->shape;
    op->run = rl_s8_table_run;
    /* An op that treats the last values apart withdraws it (op->run_rows = NULL): a band does not know where the
     * tensor ends. One that refuses some inputs checks them after its segment (rl_s8_table_refuse_below). */
    rl_offer_chunk_rows(op, out, run_s8_table_rows);
    *state = st;
    return RL_OK;
}
