/* reduce_int.c — SUM, MEAN, REDUCE_MAX and REDUCE_MIN of plain int32 and int64 tensors (token counts, lengths
 * and index arithmetic in converted language models), on the reference walker xx_reduce_int_ref.c; reduce.c
 * has worked out the axes (op->prep.dims, reduce_axes, count) before it calls here. */
#include "ops.h"

static rl_status run_reduce_int(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    const rl_int_reduce_op which = op->code == RL_OP_SUM    ? RL_INT_REDUCE_SUM
                                   : op->code == RL_OP_MEAN ? RL_INT_REDUCE_MEAN
                                   : op->code == RL_OP_REDUCE_MAX ? RL_INT_REDUCE_MAX
                                                                  : RL_INT_REDUCE_MIN;
    xx_reduce_int_ref(input->dtype == RL_INT64, which, op->prep.dims, op->prep.reduce_axes, input->data,
                      rl_output(plan, op, 0)->data, op->prep.count, op->arena_scratch);
    return RL_OK;
}

rl_status rl_prepare_reduce_int(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    const rl_status s = rl_expect_dtype(plan, rl_output(plan, op, 0), "output", input->dtype);
    if (s != RL_OK) return s;
    const size_t count = (size_t)(op->prep.count > 0 ? op->prep.count : 1);
    if (count > SIZE_MAX / RL_INT_REDUCE_SCRATCH) return rl_fail(plan, RL_INVALID, "%zu outputs is too many", count);
    rl_request_arena_scratch(op, count * RL_INT_REDUCE_SCRATCH);
    op->run = run_reduce_int;
    return RL_OK;
}
