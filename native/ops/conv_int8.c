/* conv_int8.c — int8 CONV_2D and DEPTHWISE_CONV_2D: quantization checks, fp32 requantization scales, and
 * the int8 quantization helpers FULLY_CONNECTED and BATCH_MATMUL share. window.c computes the geometry and
 * dispatches here when the input or the filter is int8. */
#include <math.h>

#include "ops.h"

rl_status rl_s8_filter_scales(rl_plan *plan, rl_op *op, const rl_tensor *filter, int32_t channels, int32_t axis,
                              float *scales) {
    (void)op;
    if (filter->dtype != RL_INT8)
        return rl_fail(plan, RL_INVALID, "filter is %s, expected int8", rl_dtype_name(filter->dtype));
    if (filter->q_count <= 0) return rl_fail(plan, RL_INVALID, "int8 filter has no quantization scales");
    if (filter->q_count != 1 && filter->q_count != channels)
        return rl_fail(plan, RL_INVALID, "int8 filter has %d scales, expected 1 or %d (one per output channel)",
                       filter->q_count, channels);
    if (filter->q_count > 1 && filter->q_dimension != axis)
        return rl_fail(plan, RL_INVALID, "int8 filter is quantized along dimension %d, expected %d (output channels)",
                       filter->q_dimension, axis);
    for (int32_t c = 0; c < filter->q_count; ++c) {
        if (!(filter->q_scales[c] > 0.0f) || !isfinite(filter->q_scales[c]))
            return rl_fail(plan, RL_INVALID, "int8 filter scale %d is %g, must be positive and finite", c,
                           (double)filter->q_scales[c]);
        if (filter->q_zero_points[c] != 0)
            return rl_fail(plan, RL_INVALID, "int8 filter zero point %d is %lld: int8 filters are symmetric (0)", c,
                           (long long)filter->q_zero_points[c]);
    }
    for (int32_t c = 0; c < channels; ++c) scales[c] = rl_tensor_scale(filter, c);
    return RL_OK;
}

/* XNNPACK's clamp bound for a fused activation: round(f / scale + zero_point) evaluated in float with ties
 * to even (TFLite's CalculateActivationRangeQuantized rounds f / scale half away from zero, then adds the
 * zero point; the two differ on ties, e.g. RELU6 with scale 4 and zero point 1: 2 against 3). */
static int32_t xnnpack_bound(float f, float scale, int32_t zero_point) {
    float v = f / scale + (float)zero_point;
    v = v < -128.0f ? -128.0f : (v > 127.0f ? 127.0f : v);
    return (int32_t)nearbyintf(v);
}

rl_status rl_s8_requantization_of(rl_plan *plan, const rl_tensor *input, const rl_tensor *output,
                                  int32_t activation, const float *filter_scales, int32_t channels, float *scales,
                                  rl_quant_params *q) {
    rl_status s = rl_expect_per_tensor_quantization(plan, input, "int8 input");
    if (s != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "int8 output")) != RL_OK) return s;
    const float input_scale = rl_tensor_scale(input, 0), output_scale = rl_tensor_scale(output, 0);
    q->input_zero_point[0] = rl_tensor_zero_point(input, 0);
    q->output_zero_point = rl_tensor_zero_point(output, 0);
    /* In float, in XNNPACK's order: (input_scale * filter_scale) / output_scale. */
    for (int32_t c = 0; c < channels; ++c) {
        scales[c] = input_scale * filter_scales[c] / output_scale;
        if (!(scales[c] < 256.0f))
            return rl_fail(plan, RL_UNSUPPORTED,
                           "requantization scale %g (input * filter / output scale, channel %d) is 256 or more",
                           (double)scales[c], c);
    }
    const int32_t zp = q->output_zero_point;
    switch (activation) {
    case RL_ACT_NONE: q->act_min = -128; q->act_max = 127; break;
    case RL_ACT_RELU: q->act_min = xnnpack_bound(0.0f, output_scale, zp); q->act_max = 127; break;
    case RL_ACT_RELU6:
        q->act_min = xnnpack_bound(0.0f, output_scale, zp);
        q->act_max = xnnpack_bound(6.0f, output_scale, zp);
        break;
    case RL_ACT_RELU_N1_TO_1:
        q->act_min = xnnpack_bound(-1.0f, output_scale, zp);
        q->act_max = xnnpack_bound(1.0f, output_scale, zp);
        break;
    default: return rl_fail(plan, RL_UNSUPPORTED, "fused activation %d is not supported on int8", activation);
    }
    return RL_OK;
}

rl_status rl_prepare_conv2d_quantized(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise) {
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_tensor *output = rl_output(plan, op, 0);
    if (input->dtype != RL_INT8)
        return rl_fail(plan, RL_UNSUPPORTED, "%s input with an int8 filter has no kernel", rl_dtype_name(input->dtype));
    if (bias) {
        rl_status s = rl_expect_dtype(plan, bias, "int8 convolution's bias", RL_INT32);
        if (s != RL_OK) return s;
    }
    float *scales = (float *)rl_op_scratch(plan, op, sizeof(float) * (size_t)(g->out_c > 0 ? g->out_c : 1));
    if (!scales) return RL_NO_MEMORY;
    rl_status s = rl_s8_filter_scales(plan, op, filter, g->out_c, depthwise ? 3 : 0, scales);
    if (s != RL_OK) return s;
    return rl_s8_requantization_of(plan, input, output, op->params.conv.activation, scales, g->out_c, scales,
                                   &op->prep.q);
}

rl_status rl_eval_conv2d_quantized(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_quant_params *q = &op->prep.q;
    const rl_s8_requantization rq = {q->input_zero_point[0], q->output_zero_point, q->act_min, q->act_max,
                                     (const float *)op->scratch};
    (depthwise ? plan->kernels->s8_dwconv2d : plan->kernels->s8_conv2d)(
        g, &rq, (const int8_t *)rl_input(plan, op, 0)->data, (const int8_t *)filter->data,
        bias ? (const int32_t *)bias->data : NULL, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
