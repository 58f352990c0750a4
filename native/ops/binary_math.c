/* binary_math.c — POW, FLOOR_DIV and FLOOR_MOD of float32 or int32 operands broadcast together (TFLite's
 * builtin kernels; XNNPACK takes none of them). int32 refuses a zero divisor or a negative exponent at invoke,
 * as TFLite does. */
#include "ops.h"

typedef struct {
    rl_broadcast bc;
    rl_math_binary_op op;
} rl_binary_math_state;

RL_STATIC_ASSERT(sizeof(rl_binary_math_state) <= 512, "rl_binary_math_state is a small struct");

static rl_status run_binary_math(rl_plan *plan, rl_op *op) {
    const rl_binary_math_state *st = (const rl_binary_math_state *)op->state;
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    void *out = rl_output(plan, op, 0)->data;
    if (a->dtype == RL_FLOAT32) {
        f32_binary_math_ref(st->op, &st->bc, (const float *)a->data, (const float *)b->data, (float *)out);
    } else if (s32_binary_math_ref(st->op, &st->bc, (const int32_t *)a->data, (const int32_t *)b->data, (int32_t *)out)) {
        return rl_fail(plan, RL_INVALID, st->op == RL_MATH_POW ? "an int32 exponent is negative" : "division by zero");
    }
    return RL_OK;
}

rl_status rl_prepare_binary_math(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (a->dtype == RL_INT16) return rl_prepare_floor_div_mod_s16(plan, op); /* binary_int16.c */
    if (a->dtype != RL_FLOAT32 && a->dtype != RL_INT32)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s operands", rl_dtype_name(a->dtype));
    if ((s = rl_expect_dtype(plan, b, "input 1", a->dtype)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", a->dtype)) != RL_OK) return s;
    rl_binary_math_state *st = (rl_binary_math_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->op = op->code == RL_OP_POW ? RL_MATH_POW : (op->code == RL_OP_FLOOR_DIV ? RL_MATH_FLOOR_DIV : RL_MATH_FLOOR_MOD);
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &st->bc)) != RL_OK) return s;
    op->run = run_binary_math;
    return RL_OK;
}

rl_status rl_eval_binary_math(rl_plan *plan, rl_op *op) { return run_binary_math(plan, op); }
