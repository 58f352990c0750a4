/* compare_prelu_int8.c — the comparisons and PRELU beyond float32: comparisons of int8 (each operand with its
 * own quantization, s8_compare_ref.c), int32 and int64 operands; int8 PRELU (s8_prelu_ref.c). Float32 stays
 * with the broadcasting element-wise family (elementwise.c). */
#include "ops.h"

typedef struct {
    rl_broadcast bc;
    rl_compare_op op;
    rl_s8_compare_params compare;
    rl_s8_prelu_params prelu;
} rl_compare_prelu_state;

RL_STATIC_ASSERT(sizeof(rl_compare_prelu_state) <= 512, "rl_compare_prelu_state is a small struct");

static rl_status run_compare(rl_plan *plan, rl_op *op) {
    const rl_compare_prelu_state *st = (const rl_compare_prelu_state *)op->state;
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    uint8_t *out = (uint8_t *)rl_output(plan, op, 0)->data;
    if (a->dtype == RL_INT8)
        s8_compare_ref(st->op, &st->bc, &st->compare, (const int8_t *)a->data, (const int8_t *)b->data, out);
    else
        xx_compare_int_ref(st->op, a->dtype == RL_INT64, &st->bc, a->data, b->data, out);
    return RL_OK;
}

static rl_status run_prelu(rl_plan *plan, rl_op *op) {
    const rl_compare_prelu_state *st = (const rl_compare_prelu_state *)op->state;
    s8_prelu_ref(&st->bc, &st->prelu, (const int8_t *)rl_input(plan, op, 0)->data,
                 (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* The state of a non-float op: both operands of one dtype, their broadcast shape. */
static rl_compare_prelu_state *prepare_operands(rl_plan *plan, rl_op *op, int32_t out_dtype, rl_status *s) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((*s = rl_expect_dtype(plan, b, "input 1", a->dtype)) != RL_OK) return NULL;
    if ((*s = rl_expect_dtype(plan, output, "output", out_dtype)) != RL_OK) return NULL;
    rl_compare_prelu_state *st = (rl_compare_prelu_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) {
        *s = RL_NO_MEMORY;
        return NULL;
    }
    if ((*s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &st->bc)) != RL_OK) return NULL;
    const int comparison = rl_compare_of(op->code); /* -1 for PRELU, which reads no comparison */
    if (comparison >= 0) st->op = (rl_compare_op)comparison;
    return st;
}

rl_status rl_prepare_compare(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const int32_t dtype = rl_input(plan, op, 0)->dtype;
    if (dtype == RL_FLOAT32) return rl_prepare_binary(plan, op);
    if (dtype == RL_INT16) return rl_prepare_compare_s16(plan, op); /* prelu_compare_int16.c */
    if (dtype != RL_INT8 && dtype != RL_INT32 && dtype != RL_INT64)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s operands", rl_dtype_name(dtype));
    rl_compare_prelu_state *st = prepare_operands(plan, op, RL_BOOL, &s);
    if (!st) return s;
    if (dtype == RL_INT8) {
        for (int32_t i = 0; i < 2; ++i) {
            const rl_tensor *t = rl_input(plan, op, i);
            if ((s = rl_expect_per_tensor_quantization(plan, t, i ? "input 1" : "input 0")) != RL_OK) return s;
            const float scale = rl_tensor_scale(t, 0);
            if (!(scale < 1.0f) || rl_quantize_multiplier(scale, &st->compare.multiplier[i], &st->compare.shift[i]))
                return rl_fail(plan, RL_UNSUPPORTED, "input %d's scale %g: TFLite compares int8 scales below 1 only", i,
                               (double)scale);
            st->compare.zero_point[i] = rl_tensor_zero_point(t, 0);
        }
    }
    op->run = run_compare;
    return RL_OK;
}

rl_status rl_eval_compare(rl_plan *plan, rl_op *op) {
    return op->run ? op->run(plan, op) : rl_eval_binary(plan, op);
}

rl_status rl_prepare_prelu(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *x = rl_input(plan, op, 0), *alpha = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (x->dtype == RL_INT16) return rl_prepare_prelu_s16(plan, op); /* prelu_compare_int16.c */
    if (x->dtype != RL_INT8) return rl_prepare_binary(plan, op);
    rl_compare_prelu_state *st = prepare_operands(plan, op, RL_INT8, &s);
    if (!st) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, x, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, alpha, "alpha")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "output")) != RL_OK) return s;
    const double in_scale = rl_tensor_scale(x, 0), out_scale = rl_tensor_scale(output, 0);
    rl_s8_prelu_params *p = &st->prelu;
    if (rl_quantize_multiplier(in_scale / out_scale, &p->positive_multiplier, &p->positive_shift) ||
        rl_quantize_multiplier(in_scale * rl_tensor_scale(alpha, 0) / out_scale, &p->negative_multiplier,
                               &p->negative_shift))
        return rl_fail(plan, RL_INVALID, "the scales' ratios are out of range");
    p->input_zero_point = rl_tensor_zero_point(x, 0);
    p->alpha_zero_point = rl_tensor_zero_point(alpha, 0);
    p->output_zero_point = rl_tensor_zero_point(output, 0);
    op->run = run_prelu;
    return RL_OK;
}

rl_status rl_eval_prelu(rl_plan *plan, rl_op *op) {
    return op->run ? op->run(plan, op) : rl_eval_binary(plan, op);
}
