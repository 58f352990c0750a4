/* div_int8.c — int8 DIV (s8_div_ref.c, TFLite's builtin arithmetic); float32 and int32 go on to the
 * broadcasting element-wise family (elementwise.c). A divisor equal to its zero point (a real zero) fails
 * at eval, as LiteRT's does. */
#include "ops.h"

typedef struct {
    rl_broadcast bc;
    rl_s8_div_params div;
    int64_t divisor_count;
} rl_div_s8_state;

RL_STATIC_ASSERT(sizeof(rl_div_s8_state) <= 512, "rl_div_s8_state is a small struct");

static rl_status run_div_s8(rl_plan *plan, rl_op *op) {
    const rl_div_s8_state *st = (const rl_div_s8_state *)op->state;
    const int8_t *b = (const int8_t *)rl_input(plan, op, 1)->data;
    for (int64_t i = 0; i < st->divisor_count; ++i)
        if (b[i] == st->div.zero_point[1])
            return rl_fail(plan, RL_INVALID, "int8 DIV by zero: divisor element %lld is its zero point %d",
                           (long long)i, st->div.zero_point[1]);
    s8_div_ref(&st->bc, &st->div, (const int8_t *)rl_input(plan, op, 0)->data, b,
               (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* TFLite's Prepare: the multiplier is input scale / (divisor scale * output scale) in float, as its
 * float-typed scales compute it. */
rl_status rl_prepare_div(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *y = rl_output(plan, op, 0);
    if (a->dtype != RL_INT8) return rl_prepare_binary(plan, op);
    if ((s = rl_expect_int8_binary_operands(plan, op)) != RL_OK) return s;
    rl_div_s8_state *st = (rl_div_s8_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &y->shape, &st->bc)) != RL_OK) return s;
    rl_s8_div_params *p = &st->div;
    p->zero_point[0] = rl_tensor_zero_point(a, 0);
    p->zero_point[1] = rl_tensor_zero_point(b, 0);
    p->output_zero_point = rl_tensor_zero_point(y, 0);
    const float ratio = rl_tensor_scale(a, 0) / (rl_tensor_scale(b, 0) * rl_tensor_scale(y, 0));
    /* a shift past 22 would make TFLite's final shift a left one, which its kernel does not take */
    if (rl_quantize_multiplier((double)ratio, &p->output_multiplier, &p->output_shift) || p->output_shift > 22)
        return rl_fail(plan, RL_UNSUPPORTED, "the int8 DIV scale ratio %g is out of TFLite's range", (double)ratio);
    if ((s = rl_quantized_activation_range(plan, op->params.arithmetic.activation, y, &p->act_min, &p->act_max)) != RL_OK)
        return s;
    st->divisor_count = rl_shape_count(&b->shape);
    op->run = run_div_s8;
    return RL_OK;
}

rl_status rl_eval_div(rl_plan *plan, rl_op *op) { return op->run ? op->run(plan, op) : rl_eval_binary(plan, op); }
