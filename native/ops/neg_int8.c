/* neg_int8.c — NEG: int8 here, other dtypes on to elementwise.c's unary ops.
 *
 * LiteRT 2.3 (its default Interpreter, its builtin and reference kernels alike) negates the stored int8
 * values and ignores both tensors' scales and zero points: on all 256 inputs, for every scale and zero
 * point tried, the output is -x modulo 2^8 (so -128 gives -128). rillet gives the same bits
 * (s8_neg_ref.c); that is the real negation only for a zero point of 0 and one shared scale, which is why
 * the quantizer keeps NEG in float. */
#include "ops.h"
#include "s8_neg.h"

static rl_status run_neg_int8(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0);
    s8_neg_ref((size_t)rl_shape_count(&x->shape), (const int8_t *)x->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_neg(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *x = rl_input(plan, op, 0);
    rl_tensor *y = rl_output(plan, op, 0);
    if (x->dtype != RL_INT8) return rl_prepare_same_shape_f32(plan, op);
    if ((s = rl_expect_dtype(plan, y, "output", RL_INT8)) != RL_OK) return s;
    y->shape = x->shape;
    op->run = run_neg_int8;
    return RL_OK;
}

rl_status rl_eval_neg(rl_plan *plan, rl_op *op) { return op->run ? op->run(plan, op) : rl_eval_unary(plan, op); }
