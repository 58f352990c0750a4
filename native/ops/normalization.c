/* normalization.c — L2_NORMALIZATION (float32, and int8 as LiteRT's builtin kernel: an output scale of
 * 1/128 and zero point 0, no fused activation) and float32 LOCAL_RESPONSE_NORMALIZATION over the last axis
 * (f32_l2_normalize_ref.c, s8_l2_normalize_ref.c, f32_lrn_ref.c). */
#include "ops.h"

typedef struct {
    int64_t rows;
    int32_t depth;
    float act_min, act_max;
    int32_t int8, input_zero_point;
} rl_normalization_state;

RL_STATIC_ASSERT(sizeof(rl_normalization_state) <= 64, "rl_normalization_state is a small struct");

static rl_status run_normalization(rl_plan *plan, rl_op *op) {
    const rl_normalization_state *st = (const rl_normalization_state *)op->state;
    const float *x = (const float *)rl_input(plan, op, 0)->data;
    float *y = (float *)rl_output(plan, op, 0)->data;
    if (st->int8) {
        s8_l2_normalize_ref(st->rows, st->depth, st->input_zero_point, (const int8_t *)rl_input(plan, op, 0)->data,
                            (int8_t *)rl_output(plan, op, 0)->data);
    } else if (op->code == RL_OP_L2_NORMALIZATION) {
        f32_l2_normalize_ref(st->rows, st->depth, st->act_min, st->act_max, x, y);
    } else {
        const rl_lrn_params *p = &op->params.lrn;
        f32_lrn_ref(st->rows, st->depth, p->radius, p->bias, p->alpha, p->beta, x, y);
    }
    return RL_OK;
}

/* What LiteRT's int8 kernel assumes: its output holds [-1, 127/128] in steps of 1/128. */
static rl_status expect_s8_l2_quantization(rl_plan *plan, const rl_op *op, const rl_tensor *input,
                                           const rl_tensor *output) {
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT8);
    if (s != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, input, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "output")) != RL_OK) return s;
    if (rl_tensor_scale(output, 0) != 1.0f / 128.0f || rl_tensor_zero_point(output, 0) != 0)
        return rl_fail(plan, RL_INVALID, "the int8 output is quantized with scale %g and zero point %d, not 1/128 and 0",
                       (double)rl_tensor_scale(output, 0), rl_tensor_zero_point(output, 0));
    if (op->params.arithmetic.activation != RL_ACT_NONE)
        return rl_fail(plan, RL_UNSUPPORTED, "int8 with fused activation %d (LiteRT refuses any)",
                       op->params.arithmetic.activation);
    return RL_OK;
}

rl_status rl_prepare_normalization(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    const int int8 = op->code == RL_OP_L2_NORMALIZATION && input->dtype == RL_INT8;
    if (int8 && (s = expect_s8_l2_quantization(plan, op, input, output)) != RL_OK) return s;
    if (!int8 && (s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if (!int8 && (s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if (input->shape.rank < 1) return rl_fail(plan, RL_INVALID, "input must have rank 1 or more");
    if (op->code == RL_OP_LOCAL_RESPONSE_NORMALIZATION && input->shape.rank != 4)
        return rl_fail(plan, RL_INVALID, "input must have rank 4 (has %d)", input->shape.rank);
    rl_normalization_state *st = (rl_normalization_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->depth = input->shape.dims[input->shape.rank - 1];
    st->rows = st->depth ? rl_shape_count(&input->shape) / st->depth : 0;
    st->int8 = int8;
    st->input_zero_point = int8 ? rl_tensor_zero_point(input, 0) : 0;
    const int32_t activation = op->code == RL_OP_L2_NORMALIZATION ? op->params.arithmetic.activation : RL_ACT_NONE;
    if ((s = rl_activation_range(plan, activation, &st->act_min, &st->act_max)) != RL_OK) return s;
    output->shape = input->shape;
    op->run = run_normalization;
    return RL_OK;
}

rl_status rl_eval_normalization(rl_plan *plan, rl_op *op) { return run_normalization(plan, op); }
