/* quantize_int16.c — QUANTIZE and DEQUANTIZE of TFLite's 16x8 mode: float to int16, int16 to int16 or int8,
 * int8 to int16, and int16 to float, per-tensor, on s16_quantize_ref.c (LiteRT's builtin arithmetic: XNNPACK
 * takes none of them). quantize.c sends every int16 conversion here. */
#include "ops.h"
#include "s16_elementwise.h"

typedef struct {
    double scale; /* float input: the output's scale */
    int32_t multiplier, shift, input_zero_point, output_zero_point;
} rl_s16_quantize_state;

static rl_status run_quantize_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_quantize_state *st = (const rl_s16_quantize_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    const int64_t n = rl_shape_count(&output->shape);
    if (input->dtype == RL_FLOAT32)
        plan->kernels->s16_velementwise.f32_s16_vcvt((size_t)n, st->scale, st->output_zero_point,
                                                     (const float *)input->data, (int16_t *)output->data);
    else
        s16_requantize_ref(n, input->dtype == RL_INT16, output->dtype == RL_INT16, st->input_zero_point,
                           st->multiplier, st->shift, st->output_zero_point, input->data, output->data);
    return RL_OK;
}

rl_status rl_prepare_quantize_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    const int from_float = input->dtype == RL_FLOAT32;
    if (!from_float && !(input->dtype == RL_INT16 && (output->dtype == RL_INT16 || output->dtype == RL_INT8)) &&
        !(input->dtype == RL_INT8 && output->dtype == RL_INT16))
        return rl_fail(plan, RL_UNSUPPORTED, "QUANTIZE from %s to %s has no kernel (float32 or int8 to int16, int16 "
                       "to int16 or int8)", rl_dtype_name(input->dtype), rl_dtype_name(output->dtype));
    rl_status s = rl_expect_per_tensor_quantization(plan, output, "QUANTIZE's output");
    if (s == RL_OK && !from_float) s = rl_expect_per_tensor_quantization(plan, input, "QUANTIZE's input");
    if (s != RL_OK) return s;
    if (input->dtype == RL_INT16 && output->dtype == RL_INT16 &&
        (rl_tensor_zero_point(input, 0) != 0 || rl_tensor_zero_point(output, 0) != 0))
        return rl_fail(plan, RL_UNSUPPORTED, "int16 QUANTIZE needs zero points 0 (input %d, output %d)",
                       rl_tensor_zero_point(input, 0), rl_tensor_zero_point(output, 0));
    rl_s16_quantize_state *st = (rl_s16_quantize_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->output_zero_point = rl_tensor_zero_point(output, 0);
    st->scale = (double)rl_tensor_scale(output, 0);
    if (!from_float) {
        st->input_zero_point = rl_tensor_zero_point(input, 0);
        const double ratio = (double)rl_tensor_scale(input, 0) / (double)rl_tensor_scale(output, 0);
        if (rl_quantize_multiplier(ratio, &st->multiplier, &st->shift) || st->shift > 30)
            return rl_fail(plan, RL_UNSUPPORTED, "QUANTIZE's input/output scale ratio %g is outside TFLite's range",
                           ratio);
    }
    op->run = run_quantize_s16;
    return RL_OK;
}

typedef struct {
    float scale;
    int32_t zero_point;
} rl_s16_dequantize_state;

static rl_status run_dequantize_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_dequantize_state *st = (const rl_s16_dequantize_state *)op->state;
    rl_tensor *output = rl_output(plan, op, 0);
    s16_f32_dequantize_ref(rl_shape_count(&output->shape), st->scale, st->zero_point,
                           (const int16_t *)rl_input(plan, op, 0)->data, (float *)output->data);
    return RL_OK;
}

rl_status rl_prepare_dequantize_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_status s = rl_expect_per_tensor_quantization(plan, input, "DEQUANTIZE's int16 input");
    if (s != RL_OK) return s;
    rl_s16_dequantize_state *st = (rl_s16_dequantize_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->scale = rl_tensor_scale(input, 0);
    st->zero_point = rl_tensor_zero_point(input, 0);
    op->run = run_dequantize_s16;
    return RL_OK;
}
