/* gather_nd.c — GATHER_ND: params (any dtype) and int32/int64 indices whose last axis indexes params' first
 * axes; the output is indices' outer shape followed by the rest of params' shape. An index outside its axis
 * is an error at invoke, as in TFLite. */
#include "ops.h"

typedef struct {
    int64_t n_slices, slice_elems;
    int64_t params_dims[8];
    int32_t index_depth;
    size_t elem;
} rl_gather_nd_state;

RL_STATIC_ASSERT(sizeof(rl_gather_nd_state) <= 128, "rl_gather_nd_state is a small struct");

static rl_status run_gather_nd(rl_plan *plan, rl_op *op) {
    const rl_gather_nd_state *st = (const rl_gather_nd_state *)op->state;
    const rl_tensor *indices = rl_input(plan, op, 1);
    if (xx_gather_nd_ref(st->n_slices, st->index_depth, st->params_dims, st->slice_elems, indices->data,
                         indices->dtype == RL_INT64, st->elem, rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data))
        return rl_fail(plan, RL_INVALID, "an index is outside the params' shape");
    return RL_OK;
}

rl_status rl_prepare_gather_nd(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *params = rl_input(plan, op, 0), *indices = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (indices->dtype != RL_INT32 && indices->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "indices must be int32 or int64, not %s", rl_dtype_name(indices->dtype));
    if ((s = rl_expect_dtype(plan, output, "output", params->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", params, "params")) != RL_OK) return s;
    if (indices->shape.rank < 1) return rl_fail(plan, RL_INVALID, "indices must have rank 1 or more");
    const int32_t depth = indices->shape.dims[indices->shape.rank - 1];
    if (depth > params->shape.rank)
        return rl_fail(plan, RL_INVALID, "index tuples of %d values into a rank-%d params", depth, params->shape.rank);
    const int32_t rank = indices->shape.rank - 1 + params->shape.rank - depth;
    if (rank > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "the output would have rank %d", rank);
    rl_gather_nd_state *st = (rl_gather_nd_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->index_depth = depth;
    st->elem = rl_dtype_size(params->dtype);
    st->n_slices = 1;
    st->slice_elems = 1;
    output->shape.rank = 0;
    for (int32_t d = 0; d < indices->shape.rank - 1; ++d) {
        st->n_slices *= indices->shape.dims[d];
        output->shape.dims[output->shape.rank++] = indices->shape.dims[d];
    }
    for (int32_t d = 0; d < params->shape.rank; ++d) {
        if (d < depth) {
            st->params_dims[d] = params->shape.dims[d];
        } else {
            st->slice_elems *= params->shape.dims[d];
            output->shape.dims[output->shape.rank++] = params->shape.dims[d];
        }
    }
    op->run = run_gather_nd;
    return RL_OK;
}

rl_status rl_eval_gather_nd(rl_plan *plan, rl_op *op) { return run_gather_nd(plan, op); }
