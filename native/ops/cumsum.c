/* cumsum.c — CUMSUM of float32, int32 or int64 values along a constant axis, exclusive and reverse as the
 * options say (xx_cumsum_ref.c). */
#include "ops.h"

typedef struct {
    int64_t outer, axis_size, inner;
} rl_cumsum_state;

RL_STATIC_ASSERT(sizeof(rl_cumsum_state) <= 64, "rl_cumsum_state is a small struct");

static rl_status run_cumsum(rl_plan *plan, rl_op *op) {
    const rl_cumsum_state *st = (const rl_cumsum_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    xx_cumsum_ref(input->dtype, st->outer, st->axis_size, st->inner, op->params.cumsum.exclusive,
                  op->params.cumsum.reverse, input->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_cumsum(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *axis_t = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (input->dtype != RL_FLOAT32 && input->dtype != RL_INT32 && input->dtype != RL_INT64)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s input", rl_dtype_name(input->dtype));
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    int32_t axis = 0;
    if ((s = rl_known_axis(plan, axis_t, rank, &axis)) != RL_OK) return s;
    rl_cumsum_state *st = (rl_cumsum_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->outer = st->inner = 1;
    st->axis_size = input->shape.dims[axis];
    for (int32_t d = 0; d < rank; ++d) {
        if (d < axis) st->outer *= input->shape.dims[d];
        if (d > axis) st->inner *= input->shape.dims[d];
    }
    output->shape = input->shape;
    op->run = run_cumsum;
    return RL_OK;
}

rl_status rl_eval_cumsum(rl_plan *plan, rl_op *op) { return run_cumsum(plan, op); }
