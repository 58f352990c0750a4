/* dynamic_update_slice.c — DYNAMIC_UPDATE_SLICE (float32, int8, int32, int64, bool): the operand with the update
 * written at start indices read at invoke (int32 or int64, one per dimension), each clamped to [0, operand dim -
 * update dim] as TFLite does, so a start past the end moves the block back instead of failing
 * (xx_dynamic_update_slice_ref.c). litert-torch writes a decoder's KV cache with it. */
#include "ops.h"

typedef struct {
    int64_t dims[8];
    int64_t update_dims[8];
    int32_t rank;
    size_t elem;
} rl_dynamic_update_slice_state;

RL_STATIC_ASSERT(sizeof(rl_dynamic_update_slice_state) <= 160, "rl_dynamic_update_slice_state is a small struct");

static rl_status run_dynamic_update_slice(rl_plan *plan, rl_op *op) {
    const rl_dynamic_update_slice_state *st = (const rl_dynamic_update_slice_state *)op->state;
    const rl_tensor *indices = rl_input(plan, op, 2);
    int64_t starts[8] = {0};
    for (int32_t d = 0; d < st->rank; ++d) {
        const int32_t k = 8 - st->rank + d;
        int64_t s = rl_read_index(indices, d);
        const int64_t last = st->dims[k] - st->update_dims[k];
        starts[k] = s < 0 ? 0 : s > last ? last : s;
    }
    xx_dynamic_update_slice_ref(st->dims, st->update_dims, starts, st->elem, rl_input(plan, op, 0)->data,
                                rl_input(plan, op, 1)->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_dynamic_update_slice(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 3, 3);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *update = rl_input(plan, op, 1), *indices = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, update, "update", input->dtype)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
    if (indices->dtype != RL_INT32 && indices->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "start indices must be int32 or int64, not %s", rl_dtype_name(indices->dtype));
    const int32_t rank = input->shape.rank;
    if (update->shape.rank != rank)
        return rl_fail(plan, RL_INVALID, "the update has rank %d, the operand rank %d", update->shape.rank, rank);
    if (indices->shape.rank != 1 || indices->shape.dims[0] != rank)
        return rl_fail(plan, RL_INVALID, "start indices must be a vector of %d (the operand's rank), have %lld values",
                       rank, (long long)rl_shape_count(&indices->shape));
    for (int32_t d = 0; d < rank; ++d)
        if (update->shape.dims[d] > input->shape.dims[d])
            return rl_fail(plan, RL_INVALID, "the update's dimension %d is %lld, larger than the operand's %lld", d,
                           (long long)update->shape.dims[d], (long long)input->shape.dims[d]);
    rl_dynamic_update_slice_state *st = (rl_dynamic_update_slice_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    for (int32_t d = 0; d < 8; ++d) {
        const int32_t k = d - (8 - rank);
        st->dims[d] = k >= 0 ? input->shape.dims[k] : 1;
        st->update_dims[d] = k >= 0 ? update->shape.dims[k] : 1;
    }
    st->rank = rank;
    st->elem = rl_dtype_size(input->dtype);
    output->shape = input->shape;
    op->run = run_dynamic_update_slice;
    return RL_OK;
}

rl_status rl_eval_dynamic_update_slice(rl_plan *plan, rl_op *op) { return run_dynamic_update_slice(plan, op); }
