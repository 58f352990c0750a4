/* one_hot.c — ONE_HOT: int32/int64 indices, a constant depth, on and off values of the output's type (any
 * dtype); depth is inserted at `axis` (-1: last) of the indices' shape (xx_one_hot_ref.c). */
#include "ops.h"

typedef struct {
    int64_t outer, depth, inner;
    size_t elem;
} rl_one_hot_state;

RL_STATIC_ASSERT(sizeof(rl_one_hot_state) <= 64, "rl_one_hot_state is a small struct");

static rl_status run_one_hot(rl_plan *plan, rl_op *op) {
    const rl_one_hot_state *st = (const rl_one_hot_state *)op->state;
    const rl_tensor *indices = rl_input(plan, op, 0);
    xx_one_hot_ref(st->outer, st->depth, st->inner, indices->data, indices->dtype == RL_INT64, st->elem,
                   rl_input(plan, op, 2)->data, rl_input(plan, op, 3)->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_one_hot(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 4, 4);
    if (s != RL_OK) return s;
    const rl_tensor *indices = rl_input(plan, op, 0), *depth = rl_input(plan, op, 1);
    const rl_tensor *on = rl_input(plan, op, 2), *off = rl_input(plan, op, 3);
    rl_tensor *output = rl_output(plan, op, 0);
    if (indices->dtype != RL_INT32 && indices->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "indices must be int32 or int64, not %s", rl_dtype_name(indices->dtype));
    if ((s = rl_known_indices(plan, depth, "depth")) != RL_OK) return s;
    if (rl_shape_count(&depth->shape) != 1 || rl_shape_count(&on->shape) != 1 || rl_shape_count(&off->shape) != 1)
        return rl_fail(plan, RL_INVALID, "depth, on_value and off_value must be one value each");
    if ((s = rl_expect_dtype(plan, off, "off_value", on->dtype)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", on->dtype)) != RL_OK) return s;
    const int32_t rank = indices->shape.rank;
    if (rank + 1 > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "the output would have rank %d", rank + 1);
    int32_t axis = op->params.one_hot.axis;
    if (axis == -1) axis = rank;
    if (axis < 0 || axis > rank) return rl_fail(plan, RL_INVALID, "axis %d is outside [-1, %d]", axis, rank);
    const int64_t n = rl_read_index(depth, 0);
    if (n < 0 || n > 2147483647) return rl_fail(plan, RL_INVALID, "depth is %lld", (long long)n);
    rl_one_hot_state *st = (rl_one_hot_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->outer = st->inner = 1;
    st->depth = n;
    st->elem = rl_dtype_size(on->dtype);
    output->shape.rank = rank + 1;
    for (int32_t d = 0, j = 0; d <= rank; ++d) {
        if (d == axis) {
            output->shape.dims[d] = (int32_t)n;
            continue;
        }
        output->shape.dims[d] = indices->shape.dims[j];
        if (d < axis) st->outer *= indices->shape.dims[j];
        else st->inner *= indices->shape.dims[j];
        ++j;
    }
    op->run = run_one_hot;
    return RL_OK;
}

rl_status rl_eval_one_hot(rl_plan *plan, rl_op *op) { return run_one_hot(plan, op); }
