/* mirror_pad.c — MIRROR_PAD, REFLECT or SYMMETRIC, any dtype (int8 keeps its quantization), paddings known
 * when the plan is prepared (xx_mirror_pad_ref.c). */
#include "ops.h"

typedef struct {
    int32_t rank, symmetric;
    int32_t before[8];
    int64_t in_dims[8], out_dims[8];
    size_t elem;
} rl_mirror_pad_state;

RL_STATIC_ASSERT(sizeof(rl_mirror_pad_state) <= 256, "rl_mirror_pad_state is a small struct");

static rl_status run_mirror_pad(rl_plan *plan, rl_op *op) {
    const rl_mirror_pad_state *st = (const rl_mirror_pad_state *)op->state;
    xx_mirror_pad_ref(st->rank, st->in_dims, st->before, st->out_dims, st->symmetric, st->elem,
                      rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_mirror_pad(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *pads = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_known_indices(plan, pads, "paddings")) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    if (pads->shape.rank != 2 || pads->shape.dims[0] != rank || pads->shape.dims[1] != 2)
        return rl_fail(plan, RL_INVALID, "paddings must be [%d, 2]", rank);
    if (op->params.mirror_pad.mode != 0 && op->params.mirror_pad.mode != 1)
        return rl_fail(plan, RL_INVALID, "mode %d is neither REFLECT nor SYMMETRIC", op->params.mirror_pad.mode);
    rl_mirror_pad_state *st = (rl_mirror_pad_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->rank = rank;
    st->symmetric = op->params.mirror_pad.mode == 1;
    st->elem = rl_dtype_size(input->dtype);
    output->shape.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t n = input->shape.dims[d], before = rl_read_index(pads, 2 * d), after = rl_read_index(pads, 2 * d + 1);
        const int64_t most = st->symmetric ? n : n - 1;
        if (before < 0 || after < 0 || before > most || after > most)
            return rl_fail(plan, RL_INVALID, "padding of axis %d (%lld, %lld) must be within [0, %lld]", d,
                           (long long)before, (long long)after, (long long)most);
        st->before[d] = (int32_t)before;
        st->in_dims[d] = n;
        st->out_dims[d] = n + before + after;
        output->shape.dims[d] = (int32_t)st->out_dims[d];
    }
    op->run = run_mirror_pad;
    return RL_OK;
}

rl_status rl_eval_mirror_pad(rl_plan *plan, rl_op *op) { return run_mirror_pad(plan, op); }
