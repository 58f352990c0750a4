/* reduce_prod_any.c — REDUCE_PROD (float32, int32) and REDUCE_ANY (bool) over constant axes, keep_dims as
 * the options say; the input walked in order (xx_reduce_prod_any_ref.c). */
#include "ops.h"

typedef struct {
    int64_t dims[8];
    int32_t reduced[8];
    int64_t out_count;
} rl_reduce_prod_any_state;

RL_STATIC_ASSERT(sizeof(rl_reduce_prod_any_state) <= 128, "rl_reduce_prod_any_state is a small struct");

static rl_status run_reduce_prod_any(rl_plan *plan, rl_op *op) {
    const rl_reduce_prod_any_state *st = (const rl_reduce_prod_any_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    xx_reduce_prod_any_ref(input->dtype, st->dims, st->reduced, input->data, rl_output(plan, op, 0)->data,
                           st->out_count);
    return RL_OK;
}

rl_status rl_prepare_reduce_prod_any(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *axes = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    const int any = op->code == RL_OP_REDUCE_ANY;
    if (any && (s = rl_expect_dtype(plan, input, "input", RL_BOOL)) != RL_OK) return s;
    if (!any && input->dtype != RL_FLOAT32 && input->dtype != RL_INT32)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s input", rl_dtype_name(input->dtype));
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, axes, "axis")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    int32_t reduced[RL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < rl_shape_count(&axes->shape); ++i) {
        const int64_t a = rl_read_index(axes, i);
        if (a < -rank || a >= rank) return rl_fail(plan, RL_INVALID, "axis %lld is outside a rank-%d input", (long long)a, rank);
        reduced[a < 0 ? a + rank : a] = 1;
    }
    rl_reduce_prod_any_state *st = (rl_reduce_prod_any_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    for (int32_t d = 0; d < 8; ++d) {
        const int32_t k = d - (8 - rank);
        st->dims[d] = k >= 0 ? input->shape.dims[k] : 1;
        st->reduced[d] = k >= 0 ? reduced[k] : 0;
    }
    output->shape.rank = 0;
    for (int32_t d = 0; d < rank; ++d) {
        if (!reduced[d]) output->shape.dims[output->shape.rank++] = input->shape.dims[d];
        else if (op->params.reducer.keep_dims) output->shape.dims[output->shape.rank++] = 1;
    }
    st->out_count = rl_shape_count(&output->shape);
    op->run = run_reduce_prod_any;
    return RL_OK;
}

rl_status rl_eval_reduce_prod_any(rl_plan *plan, rl_op *op) { return run_reduce_prod_any(plan, op); }
