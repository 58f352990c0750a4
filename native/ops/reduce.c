/* reduce.c — MEAN and SUM over constant axes: sums in float, then MEAN divides by the count (int8:
 * reduce_int8.c). */
#include "ops.h"

rl_status rl_prepare_reduce(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *axes = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const int is_s8 = input->dtype == RL_INT8;
    if (!is_s8 && (s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if (!is_s8 && (s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, axes, "axis")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    int32_t reduced[RL_MAX_DIMS] = {0};
    const int64_t n_axes = rl_shape_count(&axes->shape);
    for (int64_t i = 0; i < n_axes; ++i) {
        int64_t a = rl_read_index(axes, i);
        if (a < -rank || a >= rank) return rl_fail(plan, RL_INVALID, "axis %lld is outside a rank-%d input", (long long)a, rank);
        reduced[a < 0 ? a + rank : a] = 1;
    }
    float divisor = 1.0f;
    int64_t reduced_count = 1;
    output->shape.rank = 0;
    for (int32_t d = 0; d < 8; ++d) {
        const int32_t k = d - (8 - rank);
        op->prep.dims[d] = k >= 0 ? input->shape.dims[k] : 1;
        op->prep.reduce_axes[d] = k >= 0 ? reduced[k] : 0;
    }
    for (int32_t d = 0; d < rank; ++d) {
        if (reduced[d]) {
            divisor *= (float)input->shape.dims[d];
            reduced_count *= input->shape.dims[d];
            if (op->params.reducer.keep_dims) output->shape.dims[output->shape.rank++] = 1;
        } else {
            output->shape.dims[output->shape.rank++] = input->shape.dims[d];
        }
    }
    op->prep.divisor = op->code == RL_OP_MEAN ? divisor : 1.0f;
    op->prep.count = rl_shape_count(&output->shape);
    return is_s8 ? rl_prepare_reduce_s8(plan, op, reduced_count) : RL_OK;
}

rl_status rl_eval_reduce(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_reduce_s8(plan, op);
    plan->kernels->f32_reduce_sum(op->prep.dims, op->prep.reduce_axes, op->prep.divisor,
                                  (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data,
                                  op->prep.count);
    return RL_OK;
}
