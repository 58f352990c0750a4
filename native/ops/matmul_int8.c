/* matmul_int8.c — int8 FULLY_CONNECTED. matmul.c computes shapes and dispatches here when an operand is int8
 * (BATCH_MATMUL's int8 form: batch_matmul_int8.c). */
#include "conv_hybrid_gemm.h"

rl_status rl_prepare_fully_connected_quantized(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0), *weights = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_tensor *output = rl_output(plan, op, 0);
    const int32_t units = weights->shape.dims[0], depth = weights->shape.dims[1];
    if (input->dtype == RL_FLOAT32) { /* hybrid: weight scales, then one quantized input row */
        rl_status s = rl_expect_dtype(plan, output, "hybrid fully connected's output", RL_FLOAT32);
        if (s == RL_OK && bias) s = rl_expect_dtype(plan, bias, "hybrid fully connected's bias", RL_FLOAT32);
        if (s != RL_OK) return s;
        float *scales = (float *)rl_op_scratch(plan, op, sizeof(float) * (size_t)(units > 0 ? units : 1));
        if (!scales) return RL_NO_MEMORY;
        if ((s = rl_s8_filter_scales(plan, op, weights, units, 0, scales)) != RL_OK) return s;
        s = rl_use_qd8_gemm_fully_connected(plan, op, op->prep.outer, units, depth, op->prep.act_min,
                                            op->prep.act_max); /* constant weights: the micro-kernels */
        /* Only the reference quantizes a row into scratch: an op with arena scratch joins no band (bands.h). */
        if (s == RL_OK && !op->run) rl_request_arena_scratch(op, (size_t)depth + 1);
        return s;
    }
    if (input->dtype != RL_INT8)
        return rl_fail(plan, RL_UNSUPPORTED, "%s input with int8 weights has no kernel", rl_dtype_name(input->dtype));
    if (bias) {
        rl_status s = rl_expect_dtype(plan, bias, "int8 fully connected's bias", RL_INT32);
        if (s != RL_OK) return s;
    }
    float *scales = (float *)rl_op_scratch(plan, op, sizeof(float) * (size_t)(units > 0 ? units : 1));
    if (!scales) return RL_NO_MEMORY;
    rl_status s = rl_s8_filter_scales(plan, op, weights, units, 0, scales);
    if (s != RL_OK) return s;
    return rl_s8_requantization_of(plan, input, output, op->params.fully_connected.activation, scales, units, scales,
                                   &op->prep.q);
}

rl_status rl_eval_fully_connected_quantized(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0), *weights = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    if (input->dtype == RL_FLOAT32) {
        const int32_t units = weights->shape.dims[0];
        const float *scales = (const float *)op->scratch;
        plan->kernels->qd8_f32_qc8w_fully_connected(
            op->prep.outer, weights->shape.dims[1], units, (const float *)input->data, (const int8_t *)weights->data,
            scales, bias ? (const float *)bias->data : NULL, op->prep.act_min, op->prep.act_max,
            (int8_t *)op->arena_scratch, (float *)rl_output(plan, op, 0)->data);
        return RL_OK;
    }
    const rl_quant_params *q = &op->prep.q;
    const rl_s8_requantization rq = {q->input_zero_point[0], q->output_zero_point, q->act_min, q->act_max,
                                     (const float *)op->scratch};
    plan->kernels->s8_fully_connected(op->prep.outer, weights->shape.dims[1], weights->shape.dims[0], &rq,
                                      (const int8_t *)rl_input(plan, op, 0)->data, (const int8_t *)weights->data,
                                      bias ? (const int32_t *)bias->data : NULL,
                                      (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
