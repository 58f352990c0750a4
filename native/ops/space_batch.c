/* space_batch.c — SPACE_TO_BATCH_ND (blocks of spatial positions moved to the batch, zero padding first;
 * int8 pads with the zero point) and BATCH_TO_SPACE_ND (the inverse, then cropped), any dtype, block_shape
 * and paddings/crops known when the plan is prepared (xx_space_batch_ref.c). */
#include <string.h>

#include "ops.h"

typedef struct {
    int32_t m;
    int64_t in_batch, out_batch;
    int64_t in_spatial[6], out_spatial[6];
    int32_t block[6], before[6];
    size_t inner_bytes;
    uint8_t pad_value[8]; /* the pad element repeated */
} rl_space_batch_state;

RL_STATIC_ASSERT(sizeof(rl_space_batch_state) <= 256, "rl_space_batch_state is a small struct");

static rl_status run_space_batch(rl_plan *plan, rl_op *op) {
    const rl_space_batch_state *st = (const rl_space_batch_state *)op->state;
    xx_space_batch_ref(op->code == RL_OP_SPACE_TO_BATCH_ND, st->m, st->in_batch, st->in_spatial, st->out_batch,
                       st->out_spatial, st->block, st->before, st->inner_bytes, st->pad_value,
                       rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_space_batch(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 3, 3);
    if (s != RL_OK) return s;
    const int to_batch = op->code == RL_OP_SPACE_TO_BATCH_ND;
    const rl_tensor *input = rl_input(plan, op, 0), *block = rl_input(plan, op, 1), *pads = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    const char *pads_name = to_batch ? "paddings" : "crops";
    if ((s = rl_known_indices(plan, block, "block_shape")) != RL_OK) return s;
    if ((s = rl_known_indices(plan, pads, pads_name)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
    const int64_t m = rl_shape_count(&block->shape);
    if (m < 1 || m > 6 || m >= input->shape.rank)
        return rl_fail(plan, RL_INVALID, "%lld block sizes for a rank-%d input", (long long)m, input->shape.rank);
    if (rl_shape_count(&pads->shape) != 2 * m) return rl_fail(plan, RL_INVALID, "%s must be [%lld, 2]", pads_name, (long long)m);
    rl_space_batch_state *st = (rl_space_batch_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->m = (int32_t)m;
    st->in_batch = input->shape.dims[0];
    int64_t blocks = 1;
    output->shape = input->shape;
    for (int32_t d = 0; d < st->m; ++d) {
        const int64_t b = rl_read_index(block, d), before = rl_read_index(pads, 2 * d), after = rl_read_index(pads, 2 * d + 1);
        const int64_t n = input->shape.dims[d + 1];
        if (b < 1 || b > 65536) return rl_fail(plan, RL_INVALID, "block_shape[%d] is %lld", d, (long long)b);
        if (before < 0 || after < 0) return rl_fail(plan, RL_INVALID, "%s of axis %d are negative", pads_name, d + 1);
        int64_t out;
        if (to_batch) {
            if ((n + before + after) % b != 0)
                return rl_fail(plan, RL_INVALID, "padded axis %d (%lld) is not a multiple of its block %lld", d + 1,
                               (long long)(n + before + after), (long long)b);
            out = (n + before + after) / b;
        } else {
            out = n * b - before - after;
            if (out < 0) return rl_fail(plan, RL_INVALID, "crops of axis %d exceed its size", d + 1);
        }
        st->block[d] = (int32_t)b;
        st->before[d] = (int32_t)before;
        st->in_spatial[d] = n;
        st->out_spatial[d] = out;
        output->shape.dims[d + 1] = (int32_t)out;
        blocks *= b;
    }
    if (!to_batch && st->in_batch % blocks != 0)
        return rl_fail(plan, RL_INVALID, "batch %lld is not a multiple of the blocks' %lld", (long long)st->in_batch,
                       (long long)blocks);
    st->out_batch = to_batch ? st->in_batch * blocks : st->in_batch / blocks;
    output->shape.dims[0] = (int32_t)st->out_batch;
    st->inner_bytes = rl_dtype_size(input->dtype);
    for (int32_t d = st->m + 1; d < input->shape.rank; ++d) st->inner_bytes *= (size_t)input->shape.dims[d];
    const int32_t zero_point = (input->dtype == RL_INT8 || input->dtype == RL_UINT8) && input->q_count > 0
                                   ? rl_tensor_zero_point(output, 0) : 0;
    memset(st->pad_value, zero_point & 0xff, sizeof st->pad_value);
    op->run = run_space_batch;
    return RL_OK;
}

rl_status rl_eval_space_batch(rl_plan *plan, rl_op *op) { return run_space_batch(plan, op); }
