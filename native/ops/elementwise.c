/* elementwise.c — binary ops with broadcasting (arithmetic, MAXIMUM, MINIMUM, PRELU, the comparisons), unary
 * ops, LEAKY_RELU, SOFTMAX, LOG_SOFTMAX. */
#include "bands.h"
#include "ops.h"

static rl_binary_op binary_of(int32_t code) {
    switch (code) {
    case RL_OP_SUB: return RL_BIN_SUB;
    case RL_OP_MUL: return RL_BIN_MUL;
    case RL_OP_DIV: return RL_BIN_DIV;
    case RL_OP_SQUARED_DIFFERENCE: return RL_BIN_SQUARED_DIFFERENCE;
    case RL_OP_MAXIMUM: return RL_BIN_MAXIMUM;
    case RL_OP_MINIMUM: return RL_BIN_MINIMUM;
    case RL_OP_PRELU: return RL_BIN_PRELU;
    default: return RL_BIN_ADD;
    }
}

int rl_compare_of(int32_t code) {
    switch (code) {
    case RL_OP_GREATER: return RL_CMP_GREATER;
    case RL_OP_GREATER_EQUAL: return RL_CMP_GREATER_EQUAL;
    case RL_OP_LESS: return RL_CMP_LESS;
    case RL_OP_LESS_EQUAL: return RL_CMP_LESS_EQUAL;
    case RL_OP_EQUAL: return RL_CMP_EQUAL;
    case RL_OP_NOT_EQUAL: return RL_CMP_NOT_EQUAL;
    default: return -1;
    }
}

static int has_activation(int32_t code) {
    return code == RL_OP_ADD || code == RL_OP_SUB || code == RL_OP_MUL || code == RL_OP_DIV;
}

static rl_status run_s8_minmax(rl_plan *plan, rl_op *op) {
    s8_minmax_ref(op->code == RL_OP_MAXIMUM, &op->prep.bc, (const int8_t *)rl_input(plan, op, 0)->data,
                  (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* Banded execution (bands.h) of a float operation whose operands have the output's shape: pixel p of a 4-D
 * NHWC output is its elements p * C ..., and each reads the same element of a and b only. */
static void run_f32_binary_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const size_t channels = (size_t)op->prep.bc.count / (op->band_rows * op->band_row_pixels), at = first * channels;
    rl_broadcast bc = op->prep.bc;
    bc.count = (int64_t)(count * channels);
    plan->kernels->f32_binary(binary_of(op->code), &bc, (const float *)rl_input(plan, op, 0)->data + at,
                              (const float *)rl_input(plan, op, 1)->data + at,
                              (float *)rl_output(plan, op, 0)->data + at);
}

rl_status rl_prepare_binary(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (b->dtype != a->dtype)
        return rl_fail(plan, RL_INVALID, "operands are %s and %s", rl_dtype_name(a->dtype), rl_dtype_name(b->dtype));
    const int comparison = rl_compare_of(op->code) >= 0;
    const int32_t out_dtype = comparison ? RL_BOOL : a->dtype;
    if ((s = rl_expect_dtype(plan, output, "output", out_dtype)) != RL_OK) return s;
    if (a->dtype == RL_INT8 && (op->code == RL_OP_MAXIMUM || op->code == RL_OP_MINIMUM)) {
        for (int32_t i = 0; i < 2; ++i) {
            const rl_tensor *t = rl_input(plan, op, i);
            if ((s = rl_expect_per_tensor_quantization(plan, t, "input")) != RL_OK) return s;
            if ((s = rl_expect_quantized_alike(plan, t, i ? "input 1" : "input 0", output, "output")) != RL_OK) return s;
        }
        if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc)) != RL_OK) return s;
        op->run = run_s8_minmax;
        return RL_OK;
    }
    if (a->dtype == RL_INT8) return rl_prepare_binary_s8(plan, op);
    const int int32_ok = !comparison && op->code != RL_OP_PRELU;
    if (a->dtype != RL_FLOAT32 && !(a->dtype == RL_INT32 && int32_ok))
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s operands", rl_dtype_name(a->dtype));
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc)) != RL_OK) return s;
    const int32_t activation = has_activation(op->code) ? op->params.arithmetic.activation : RL_ACT_NONE;
    if ((s = rl_activation_range(plan, activation, &op->prep.bc.act_min, &op->prep.bc.act_max)) != RL_OK) return s;
    if (a->dtype == RL_INT32 && activation != RL_ACT_NONE)
        return rl_fail(plan, RL_UNSUPPORTED, "fused activations on int32 are not supported");
    if (a->dtype == RL_FLOAT32 && !comparison && op->prep.bc.contiguous == 1 && op->kind->eval == rl_eval_binary)
        rl_offer_elementwise_rows(op, output, run_f32_binary_rows);
    return RL_OK;
}

rl_status rl_eval_binary(rl_plan *plan, rl_op *op) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    void *out = rl_output(plan, op, 0)->data;
    if (a->dtype == RL_INT8) return rl_eval_binary_s8(plan, op);
    if (rl_compare_of(op->code) >= 0) {
        f32_compare_ref((rl_compare_op)rl_compare_of(op->code), &op->prep.bc, (const float *)a->data,
                        (const float *)b->data, (uint8_t *)out);
    } else if (a->dtype == RL_INT32) {
        s32_binary_ref(binary_of(op->code), &op->prep.bc, (const int32_t *)a->data, (const int32_t *)b->data,
                       (int32_t *)out);
    } else {
        plan->kernels->f32_binary(binary_of(op->code), &op->prep.bc, (const float *)a->data,
                                  (const float *)b->data, (float *)out);
    }
    return RL_OK;
}

rl_status rl_prepare_same_shape_f32(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if (input->dtype == RL_INT8 && op->code != RL_OP_SOFTMAX && op->code != RL_OP_LOG_SOFTMAX)
        return rl_prepare_activation_s8(plan, op);
    if (input->dtype == RL_INT8 && op->code == RL_OP_SOFTMAX) return rl_prepare_softmax_s8(plan, op);
    if (input->dtype == RL_INT8 && op->code == RL_OP_LOG_SOFTMAX) return rl_prepare_log_softmax_s8(plan, op);
    if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    output->shape = input->shape;
    op->prep.count = rl_shape_count(&input->shape);
    if (op->code == RL_OP_SOFTMAX || op->code == RL_OP_LOG_SOFTMAX) {
        if (input->shape.rank < 1) return rl_fail(plan, RL_INVALID, "input must have rank 1 or more");
        op->prep.inner = input->shape.dims[input->shape.rank - 1];
        op->prep.outer = op->prep.inner ? op->prep.count / op->prep.inner : 0;
    }
    return RL_OK;
}

static rl_unary_op unary_of(int32_t code) {
    switch (code) {
    case RL_OP_RSQRT: return RL_UN_RSQRT;
    case RL_OP_EXP: return RL_UN_EXP;
    case RL_OP_LOG: return RL_UN_LOG;
    case RL_OP_NEG: return RL_UN_NEG;
    case RL_OP_RELU: return RL_UN_RELU;
    case RL_OP_RELU6: return RL_UN_RELU6;
    case RL_OP_LOGISTIC: return RL_UN_LOGISTIC;
    case RL_OP_TANH: return RL_UN_TANH;
    case RL_OP_SIN: return RL_UN_SIN;
    case RL_OP_COS: return RL_UN_COS;
    case RL_OP_ABS: return RL_UN_ABS;
    case RL_OP_SQRT: return RL_UN_SQRT;
    case RL_OP_SQUARE: return RL_UN_SQUARE;
    default: return RL_UN_HARD_SWISH;
    }
}

rl_status rl_eval_unary(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_activation_s8(plan, op);
    plan->kernels->f32_unary(unary_of(op->code), op->prep.count, (const float *)rl_input(plan, op, 0)->data,
                             (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_eval_leaky_relu(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_activation_s8(plan, op);
    plan->kernels->f32_leaky_relu(op->prep.count, op->params.leaky_relu.alpha,
                                  (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_eval_softmax(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_softmax_s8(plan, op);
    plan->kernels->f32_softmax(op->prep.outer, (int32_t)op->prep.inner, op->params.softmax.beta,
                               (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_eval_log_softmax(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_log_softmax_s8(plan, op);
    plan->kernels->f32_log_softmax(op->prep.outer, (int32_t)op->prep.inner, (const float *)rl_input(plan, op, 0)->data,
                                   (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
