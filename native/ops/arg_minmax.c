/* arg_minmax.c — ARG_MAX and ARG_MIN of float32, int32, int8 or uint8 values along one constant axis, as
 * int32 or int64 indices (the output tensor's type); the first index wins a tie. int8 needs no scale: the
 * order of the raw values is the order of the real ones. */
#include "ops.h"

typedef struct {
    int64_t outer, axis_size, inner;
} rl_arg_minmax_state;

RL_STATIC_ASSERT(sizeof(rl_arg_minmax_state) <= 64, "rl_arg_minmax_state is a small struct");

static rl_status run_arg_minmax(rl_plan *plan, rl_op *op) {
    const rl_arg_minmax_state *st = (const rl_arg_minmax_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    xx_arg_minmax_ref(input->dtype, op->code == RL_OP_ARG_MAX, st->outer, st->axis_size, st->inner, input->data,
                      output->dtype == RL_INT64, output->data);
    return RL_OK;
}

rl_status rl_prepare_arg_minmax(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *axis_t = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (input->dtype != RL_FLOAT32 && input->dtype != RL_INT32 && input->dtype != RL_INT8 && input->dtype != RL_UINT8)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s input", rl_dtype_name(input->dtype));
    if (output->dtype != RL_INT32 && output->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "output must be int32 or int64, not %s", rl_dtype_name(output->dtype));
    const int32_t rank = input->shape.rank;
    int32_t axis = 0;
    if ((s = rl_known_axis(plan, axis_t, rank, &axis)) != RL_OK) return s;
    rl_arg_minmax_state *st = (rl_arg_minmax_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->outer = st->inner = 1;
    st->axis_size = input->shape.dims[axis];
    if (st->axis_size == 0) return rl_fail(plan, RL_INVALID, "the axis is empty");
    output->shape.rank = 0;
    for (int32_t d = 0; d < rank; ++d) {
        if (d < axis) st->outer *= input->shape.dims[d];
        if (d > axis) st->inner *= input->shape.dims[d];
        if (d != axis) output->shape.dims[output->shape.rank++] = input->shape.dims[d];
    }
    op->run = run_arg_minmax;
    return RL_OK;
}

rl_status rl_eval_arg_minmax(rl_plan *plan, rl_op *op) { return run_arg_minmax(plan, op); }
