/* split.c — SPLIT and SPLIT_V: one input cut along an axis into the op's outputs (any dtype). SPLIT takes
 * (axis, value) and cuts equal parts; SPLIT_V takes (value, size_splits, axis), one size per output, at
 * most one of them -1 for the rest. Outputs of int8 keep the input's quantization: the values are moved,
 * never rescaled. */
#include <string.h>

#include "ops.h"

typedef struct {
    size_t outer, inner_bytes; /* the axes before the split one, and one element of the axis in bytes */
    size_t in_row_bytes;       /* one step of the outer axes in the input: the whole axis */
    int32_t sizes[RL_MAX_SPLITS];
} rl_split_state;

RL_STATIC_ASSERT(sizeof(rl_split_state) <= 256, "rl_split_state is a small struct");

static rl_status run_split(rl_plan *plan, rl_op *op) {
    const rl_split_state *st = (const rl_split_state *)op->state;
    const char *in = (const char *)rl_input(plan, op, op->code == RL_OP_SPLIT ? 1 : 0)->data;
    size_t at = 0;
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        char *out = (char *)rl_output(plan, op, k)->data;
        const size_t bytes = (size_t)st->sizes[k] * st->inner_bytes;
        for (size_t o = 0; o < st->outer; ++o) memcpy(out + o * bytes, in + o * st->in_row_bytes + at, bytes);
        at += bytes;
    }
    return RL_OK;
}

rl_status rl_prepare_split(rl_plan *plan, rl_op *op) {
    const int split_v = op->code == RL_OP_SPLIT_V;
    rl_status s = rl_expect_inputs(plan, op, split_v ? 3 : 2, split_v ? 3 : 2);
    if (s != RL_OK) return s;
    const rl_tensor *value = rl_input(plan, op, split_v ? 0 : 1), *axis_t = rl_input(plan, op, split_v ? 2 : 0);
    if (op->n_outputs > RL_MAX_SPLITS)
        return rl_fail(plan, RL_UNSUPPORTED, "%d outputs: at most %d", op->n_outputs, RL_MAX_SPLITS);
    const int32_t rank = value->shape.rank;
    int32_t axis = 0;
    if ((s = rl_known_axis(plan, axis_t, rank, &axis)) != RL_OK) return s;
    const int32_t length = value->shape.dims[axis];
    rl_split_state *st = (rl_split_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    if (split_v) {
        const rl_tensor *sizes = rl_input(plan, op, 1);
        if ((s = rl_known_indices(plan, sizes, "size_splits")) != RL_OK) return s;
        if (rl_shape_count(&sizes->shape) != op->n_outputs)
            return rl_fail(plan, RL_INVALID, "size_splits has %lld values for %d outputs",
                           (long long)rl_shape_count(&sizes->shape), op->n_outputs);
        int32_t rest = -1, total = 0;
        for (int32_t k = 0; k < op->n_outputs; ++k) {
            const int64_t v = rl_read_index(sizes, k);
            if (v == -1 && rest < 0) rest = k;
            else if (v < 0 || v > length) return rl_fail(plan, RL_INVALID, "size_splits[%d] is %lld", k, (long long)v);
            else total += (int32_t)v;
            st->sizes[k] = (int32_t)v;
        }
        if (rest >= 0) st->sizes[rest] = length - total, total = length;
        if (total != length || (rest >= 0 && st->sizes[rest] < 0))
            return rl_fail(plan, RL_INVALID, "size_splits add up to %d, the axis has %d", total, length);
    } else {
        if (op->n_outputs < 1 || length % op->n_outputs != 0)
            return rl_fail(plan, RL_INVALID, "an axis of %d does not split into %d equal parts", length, op->n_outputs);
        for (int32_t k = 0; k < op->n_outputs; ++k) st->sizes[k] = length / op->n_outputs;
    }
    st->outer = 1;
    st->inner_bytes = rl_dtype_size(value->dtype);
    for (int32_t d = 0; d < rank; ++d) {
        if (d < axis) st->outer *= (size_t)value->shape.dims[d];
        if (d > axis) st->inner_bytes *= (size_t)value->shape.dims[d];
    }
    st->in_row_bytes = (size_t)length * st->inner_bytes;
    for (int32_t k = 0; k < op->n_outputs; ++k) {
        rl_tensor *out = rl_output(plan, op, k);
        if ((s = rl_expect_dtype(plan, out, "output", value->dtype)) != RL_OK) return s;
        if ((s = rl_expect_quantized_alike(plan, out, "output", value, "input")) != RL_OK) return s;
        out->shape = value->shape;
        out->shape.dims[axis] = st->sizes[k];
    }
    op->run = run_split;
    return RL_OK;
}

rl_status rl_eval_split(rl_plan *plan, rl_op *op) { return run_split(plan, op); }
