/* abs_sqdiff_int8.c — ABS and SQUARED_DIFFERENCE on int8 (s8_abs_ref.c, s8_squared_difference_ref.c), as the
 * quantizer writes them; other dtypes go on to the float unary and broadcasting element-wise families
 * (elementwise.c). LiteRT 2.3's default Interpreter runs both int8 ops in TFLite's builtin kernels (probed:
 * AUTO, BUILTIN_WITHOUT_DEFAULT_DELEGATES and BUILTIN_REF agree), so their arithmetic is rillet's. */
#include "ops.h"

typedef struct {
    rl_broadcast bc;
    rl_s8_abs_params abs;
    rl_s8_squared_difference_params sqdiff;
} rl_abs_sqdiff_state;

RL_STATIC_ASSERT(sizeof(rl_abs_sqdiff_state) <= 512, "rl_abs_sqdiff_state is a small struct");

static rl_status multiplier(rl_plan *plan, double m, int32_t *mul, int32_t *shift, const char *what) {
    if (rl_quantize_multiplier(m, mul, shift))
        return rl_fail(plan, RL_UNSUPPORTED, "the %s scale ratio %g is out of TFLite's multiplier range", what, m);
    return RL_OK;
}

static rl_status run_abs(rl_plan *plan, rl_op *op) {
    const rl_abs_sqdiff_state *st = (const rl_abs_sqdiff_state *)op->state;
    const rl_tensor *x = rl_input(plan, op, 0);
    s8_abs_ref(rl_shape_count(&x->shape), &st->abs, (const int8_t *)x->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_abs(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *x = rl_input(plan, op, 0), *y = rl_output(plan, op, 0);
    if (x->dtype != RL_INT8) return rl_prepare_same_shape_f32(plan, op);
    if ((s = rl_expect_dtype(plan, y, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, x, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, y, "output")) != RL_OK) return s;
    rl_abs_sqdiff_state *st = (rl_abs_sqdiff_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const float sx = rl_tensor_scale(x, 0), sy = rl_tensor_scale(y, 0);
    st->abs.input_zero_point = rl_tensor_zero_point(x, 0);
    st->abs.output_zero_point = rl_tensor_zero_point(y, 0);
    st->abs.rescale = sx != sy;
    if ((s = multiplier(plan, (double)sx / (double)sy, &st->abs.multiplier, &st->abs.shift, "input-to-output")) != RL_OK)
        return s;
    y->shape = x->shape;
    op->run = run_abs;
    return RL_OK;
}

rl_status rl_eval_abs(rl_plan *plan, rl_op *op) { return op->run ? op->run(plan, op) : rl_eval_unary(plan, op); }

static rl_status run_squared_difference(rl_plan *plan, rl_op *op) {
    const rl_abs_sqdiff_state *st = (const rl_abs_sqdiff_state *)op->state;
    s8_squared_difference_ref(&st->bc, &st->sqdiff, (const int8_t *)rl_input(plan, op, 0)->data,
                              (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* TFLite's PrepareSquaredDifference: inputs scaled to twice the larger input scale with a left shift of 7,
 * so the output multiplier is that scale squared over 2^14 times the output scale. */
rl_status rl_prepare_squared_difference(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *y = rl_output(plan, op, 0);
    if (a->dtype != RL_INT8) return rl_prepare_binary(plan, op);
    if ((s = rl_expect_int8_binary_operands(plan, op)) != RL_OK) return s;
    rl_abs_sqdiff_state *st = (rl_abs_sqdiff_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &y->shape, &st->bc)) != RL_OK) return s;
    const double sa = rl_tensor_scale(a, 0), sb = rl_tensor_scale(b, 0), sy = rl_tensor_scale(y, 0);
    const double twice_max = 2.0 * (sa > sb ? sa : sb);
    rl_s8_squared_difference_params *p = &st->sqdiff;
    p->zero_point[0] = rl_tensor_zero_point(a, 0);
    p->zero_point[1] = rl_tensor_zero_point(b, 0);
    p->output_zero_point = rl_tensor_zero_point(y, 0);
    if ((s = multiplier(plan, sa / twice_max, &p->multiplier[0], &p->shift[0], "input 0")) != RL_OK) return s;
    if ((s = multiplier(plan, sb / twice_max, &p->multiplier[1], &p->shift[1], "input 1")) != RL_OK) return s;
    if ((s = multiplier(plan, twice_max * twice_max / ((double)(1 << 14) * sy), &p->output_multiplier,
                        &p->output_shift, "output")) != RL_OK)
        return s;
    op->run = run_squared_difference;
    return RL_OK;
}

rl_status rl_eval_squared_difference(rl_plan *plan, rl_op *op) {
    return op->run ? op->run(plan, op) : rl_eval_binary(plan, op);
}
