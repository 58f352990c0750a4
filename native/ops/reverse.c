/* reverse.c — REVERSE_V2: the input read backwards along constant axes, any dtype (int8 keeps its
 * quantization) (xx_reverse_ref.c). */
#include "ops.h"

typedef struct {
    int64_t dims[8];
    int32_t reversed[8];
    size_t elem;
} rl_reverse_state;

RL_STATIC_ASSERT(sizeof(rl_reverse_state) <= 128, "rl_reverse_state is a small struct");

static rl_status run_reverse(rl_plan *plan, rl_op *op) {
    const rl_reverse_state *st = (const rl_reverse_state *)op->state;
    xx_reverse_ref(st->dims, st->reversed, st->elem, rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_reverse(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *axes = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_known_indices(plan, axes, "axis")) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
    rl_reverse_state *st = (rl_reverse_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const int32_t rank = input->shape.rank;
    for (int32_t d = 0; d < 8; ++d) st->dims[d] = d - (8 - rank) >= 0 ? input->shape.dims[d - (8 - rank)] : 1;
    for (int64_t i = 0; i < rl_shape_count(&axes->shape); ++i) {
        const int64_t a = rl_read_index(axes, i);
        if (a < -rank || a >= rank) return rl_fail(plan, RL_INVALID, "axis %lld is outside a rank-%d input", (long long)a, rank);
        st->reversed[8 - rank + (a < 0 ? a + rank : a)] = 1;
    }
    st->elem = rl_dtype_size(input->dtype);
    output->shape = input->shape;
    op->run = run_reverse;
    return RL_OK;
}

rl_status rl_eval_reverse(rl_plan *plan, rl_op *op) { return run_reverse(plan, op); }
