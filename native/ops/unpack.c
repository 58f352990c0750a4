/* unpack.c — UNPACK: the input cut along `axis` into its slices, one per output, each without that axis
 * (any dtype; int8 outputs keep the input's quantization: values are moved, never rescaled). */
#include <string.h>

#include "ops.h"

typedef struct {
    size_t outer;       /* the axes before `axis` */
    size_t slice_bytes; /* one slice of one outer step: the axes after `axis` */
} rl_unpack_state;

RL_STATIC_ASSERT(sizeof(rl_unpack_state) <= 64, "rl_unpack_state is a small struct");

static rl_status run_unpack(rl_plan *plan, rl_op *op) {
    const rl_unpack_state *st = (const rl_unpack_state *)op->state;
    const char *in = (const char *)rl_input(plan, op, 0)->data;
    const size_t row = st->slice_bytes * (size_t)op->n_outputs;
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        char *out = (char *)rl_output(plan, op, k)->data;
        for (size_t o = 0; o < st->outer; ++o)
            memcpy(out + o * st->slice_bytes, in + o * row + (size_t)k * st->slice_bytes, st->slice_bytes);
    }
    return RL_OK;
}

rl_status rl_prepare_unpack(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0);
    const int32_t rank = input->shape.rank;
    int32_t axis = op->params.pack.axis;
    if (axis < -rank || axis >= rank) return rl_fail(plan, RL_INVALID, "axis %d is outside a rank-%d input", axis, rank);
    if (axis < 0) axis += rank;
    if (input->shape.dims[axis] != op->n_outputs)
        return rl_fail(plan, RL_INVALID, "axis %d has %d values for %d outputs", axis, input->shape.dims[axis],
                       op->n_outputs);
    rl_unpack_state *st = (rl_unpack_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->outer = 1;
    st->slice_bytes = rl_dtype_size(input->dtype);
    for (int32_t d = 0; d < rank; ++d) {
        if (d < axis) st->outer *= (size_t)input->shape.dims[d];
        if (d > axis) st->slice_bytes *= (size_t)input->shape.dims[d];
    }
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        rl_tensor *out = rl_output(plan, op, k);
        if ((s = rl_expect_dtype(plan, out, "output", input->dtype)) != RL_OK) return s;
        if ((s = rl_expect_quantized_alike(plan, out, "output", input, "input")) != RL_OK) return s;
        out->shape.rank = rank - 1;
        for (int32_t d = 0, j = 0; d < rank; ++d)
            if (d != axis) out->shape.dims[j++] = input->shape.dims[d];
    }
    op->run = run_unpack;
    return RL_OK;
}

rl_status rl_eval_unpack(rl_plan *plan, rl_op *op) { return run_unpack(plan, op); }
