/* prelu_compare_int16.c — PRELU (int16 input, int8 alpha) and the six comparisons on int16 operands, TFLite's
 * 16x8 mode, on s16_prelu_compare_ref.c; compare_prelu_int8.c sends int16 here. */
#include "ops.h"
#include "s16_elementwise.h"

typedef struct {
    rl_broadcast bc;
    rl_s16_prelu_params prelu;
    rl_s16_compare_params compare;
} rl_s16_prelu_compare_state;

static rl_status run_prelu_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_prelu_compare_state *st = (const rl_s16_prelu_compare_state *)op->state;
    s16_prelu_ref(&st->prelu, &st->bc, (const int16_t *)rl_input(plan, op, 0)->data,
                  (const int8_t *)rl_input(plan, op, 1)->data, (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

static rl_status run_compare_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_prelu_compare_state *st = (const rl_s16_prelu_compare_state *)op->state;
    s16_compare_ref((rl_compare_op)rl_compare_of(op->code), &st->compare, &st->bc,
                    (const int16_t *)rl_input(plan, op, 0)->data, (const int16_t *)rl_input(plan, op, 1)->data,
                    (uint8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

static rl_status expect_zero_point_0(rl_plan *plan, const rl_tensor *t, const char *what) {
    rl_status s = rl_expect_per_tensor_quantization(plan, t, what);
    if (s == RL_OK && rl_tensor_zero_point(t, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "%s has zero point %d; TFLite's 16x8 mode needs 0", what,
                       rl_tensor_zero_point(t, 0));
    return s;
}

rl_status rl_prepare_prelu_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0), *alpha = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (alpha->dtype != RL_INT8)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 PRELU needs int8 alpha (TFLite reads alpha as int8), has %s",
                       rl_dtype_name(alpha->dtype));
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = expect_zero_point_0(plan, x, "int16 input");
    if (s == RL_OK) s = expect_zero_point_0(plan, output, "int16 output");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, alpha, "alpha");
    if (s != RL_OK) return s;
    rl_s16_prelu_compare_state *st = (rl_s16_prelu_compare_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    if ((s = rl_broadcast_shapes(plan, &x->shape, &alpha->shape, &output->shape, &st->bc)) != RL_OK) return s;
    if (output->shape.rank != x->shape.rank || rl_shape_count(&output->shape) != rl_shape_count(&x->shape))
        return rl_fail(plan, RL_INVALID, "PRELU's alpha must broadcast to the input's shape");
    const float si = rl_tensor_scale(x, 0), sa = rl_tensor_scale(alpha, 0), so = rl_tensor_scale(output, 0);
    const double m1 = (double)(si / so), m2 = (double)(si * sa / so); /* float arithmetic, as TFLite's Prepare */
    rl_s16_prelu_params *p = &st->prelu;
    p->alpha_zero_point = rl_tensor_zero_point(alpha, 0);
    if (rl_quantize_multiplier(m1, &p->pos_multiplier, &p->pos_shift) || p->pos_shift > 30 ||
        rl_quantize_multiplier(m2, &p->neg_multiplier, &p->neg_shift) || p->neg_shift > 30)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 PRELU rescales %g and %g are out of range", m1, m2);
    op->run = run_prelu_s16;
    return RL_OK;
}

rl_status rl_prepare_compare_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (b->dtype != RL_INT16) return rl_fail(plan, RL_INVALID, "operands are int16 and %s", rl_dtype_name(b->dtype));
    rl_status s = rl_expect_dtype(plan, output, "output", RL_BOOL);
    if (s != RL_OK) return s;
    rl_s16_prelu_compare_state *st = (rl_s16_prelu_compare_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &st->bc)) != RL_OK) return s;
    rl_s16_compare_params *p = &st->compare;
    /* TFLite rescales only EQUAL and NOT_EQUAL, and only quantized operands */
    p->scaled = (op->code == RL_OP_EQUAL || op->code == RL_OP_NOT_EQUAL) && a->q_count > 0;
    if (p->scaled) {
        if ((s = expect_zero_point_0(plan, a, "int16 input 0")) != RL_OK) return s;
        if ((s = expect_zero_point_0(plan, b, "int16 input 1")) != RL_OK) return s;
        if (rl_quantize_multiplier(rl_tensor_scale(a, 0), &p->a_multiplier, &p->a_shift) || p->a_shift > 0 ||
            rl_quantize_multiplier(rl_tensor_scale(b, 0), &p->b_multiplier, &p->b_shift) || p->b_shift > 0)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 comparison of scales %g and %g: TFLite's kernel needs scales "
                           "below one", (double)rl_tensor_scale(a, 0), (double)rl_tensor_scale(b, 0));
    }
    op->run = run_compare_s16;
    return RL_OK;
}
