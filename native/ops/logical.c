/* logical.c — LOGICAL_AND and LOGICAL_OR of two bool tensors broadcast together, LOGICAL_NOT of one. */
#include "ops.h"

typedef struct {
    rl_broadcast bc;
    int64_t count;
} rl_logical_state;

RL_STATIC_ASSERT(sizeof(rl_logical_state) <= 512, "rl_logical_state is a small struct");

static rl_status run_logical(rl_plan *plan, rl_op *op) {
    const rl_logical_state *st = (const rl_logical_state *)op->state;
    const uint8_t *a = (const uint8_t *)rl_input(plan, op, 0)->data;
    uint8_t *out = (uint8_t *)rl_output(plan, op, 0)->data;
    if (op->code == RL_OP_LOGICAL_NOT) b8_logical_not_ref(st->count, a, out);
    else b8_logical_ref(op->code == RL_OP_LOGICAL_OR, &st->bc, a, (const uint8_t *)rl_input(plan, op, 1)->data, out);
    return RL_OK;
}

rl_status rl_prepare_logical(rl_plan *plan, rl_op *op) {
    const int unary = op->code == RL_OP_LOGICAL_NOT;
    rl_status s = rl_expect_inputs(plan, op, unary ? 1 : 2, unary ? 1 : 2);
    if (s != RL_OK) return s;
    rl_tensor *output = rl_output(plan, op, 0);
    for (int32_t i = 0; i < op->n_inputs; ++i)
        if ((s = rl_expect_dtype(plan, rl_input(plan, op, i), "input", RL_BOOL)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_BOOL)) != RL_OK) return s;
    rl_logical_state *st = (rl_logical_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    if (unary) {
        output->shape = rl_input(plan, op, 0)->shape;
    } else if ((s = rl_broadcast_shapes(plan, &rl_input(plan, op, 0)->shape, &rl_input(plan, op, 1)->shape,
                                        &output->shape, &st->bc)) != RL_OK) {
        return s;
    }
    st->count = rl_shape_count(&output->shape);
    op->run = run_logical;
    return RL_OK;
}

rl_status rl_eval_logical(rl_plan *plan, rl_op *op) { return run_logical(plan, op); }
