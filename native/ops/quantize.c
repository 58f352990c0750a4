/* quantize.c — QUANTIZE (float32 to int8, int8 to int8; int8 to uint8 and back in quantize_int8_uint8.c)
 * and DEQUANTIZE (int8 or float16 to float32).
 *
 * What LiteRT's default Interpreter gives is XNNPACK's conversions (its delegate takes both ops), so the
 * kernels follow those (kernels.h says how each rounds). A DEQUANTIZE of a constant (int8 or float16
 * weights) is folded when the plan is prepared. */
#include <math.h>

#include "bands.h"
#include "conv_gemm.h" /* rl_parallelize_elements */
#include "ops.h"

static rl_status same_shape(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_output(plan, op, 0)->shape = rl_input(plan, op, 0)->shape;
    return RL_OK;
}

/* Bands (bands.h): any chunk of elements, each converted on its own. */
static void run_quantize_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count);
static void run_dequantize_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count);

rl_status rl_prepare_quantize(rl_plan *plan, rl_op *op) {
    rl_status s = same_shape(plan, op);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if ((input->dtype == RL_INT8 && output->dtype == RL_UINT8) || (input->dtype == RL_UINT8 && output->dtype == RL_INT8))
        return rl_prepare_quantize_int8_uint8(plan, op);
    if (input->dtype == RL_INT16 || output->dtype == RL_INT16) return rl_prepare_quantize_s16(plan, op);
    if (output->dtype != RL_INT8)
        return rl_fail(plan, RL_UNSUPPORTED, "QUANTIZE to %s has no kernel (int8, or uint8 from int8)",
                       rl_dtype_name(output->dtype));
    if ((s = rl_expect_per_tensor_quantization(plan, output, "QUANTIZE's output")) != RL_OK) return s;
    rl_quant_params *q = &op->prep.q;
    const float output_scale = rl_tensor_scale(output, 0);
    q->output_zero_point = rl_tensor_zero_point(output, 0);
    if (input->dtype == RL_FLOAT32) {
        op->prep.divisor = 1.0f / output_scale; /* XNNPACK multiplies by the float reciprocal */
        rl_offer_chunk_rows(op, output, run_quantize_rows);
        return RL_OK;
    }
    if (input->dtype != RL_INT8)
        return rl_fail(plan, RL_UNSUPPORTED, "QUANTIZE from %s has no kernel (float32 or int8)",
                       rl_dtype_name(input->dtype));
    if ((s = rl_expect_per_tensor_quantization(plan, input, "QUANTIZE's input")) != RL_OK) return s;
    q->input_zero_point[0] = rl_tensor_zero_point(input, 0);
    const float ratio = rl_tensor_scale(input, 0) / output_scale;
    /* XNNPACK's qs8 conversion takes ratios in [2^-8, 2^7]; outside it LiteRT falls back to TFLite's builtin
     * kernel, whose rounding rillet does not reproduce. */
    if (!(ratio >= 0.00390625f && ratio <= 128.0f))
        return rl_fail(plan, RL_UNSUPPORTED, "int8 requantization with input/output scale ratio %g (outside "
                       "[1/256, 128]) has no kernel", (double)ratio);
    q->multiplier[0] = (int32_t)lrintf(ratio * 256.0f);
    rl_offer_chunk_rows(op, output, run_quantize_rows);
    return RL_OK;
}

/* A run of elements of a QUANTIZE or a per-tensor DEQUANTIZE, split across the plan's threads (every element
 * converted on its own, so any split gives the same bits). */
typedef struct {
    rl_plan *plan;
    rl_op *op;
    const void *x;
    void *y;
} rl_conversion_job;

static void quantize_elements(void *context, size_t first, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_conversion_job *job = (const rl_conversion_job *)context;
    const rl_quant_params *q = &job->op->prep.q;
    int8_t *y = (int8_t *)job->y + first;
    if (rl_input(job->plan, job->op, 0)->dtype == RL_FLOAT32)
        job->plan->kernels->f32_s8_quantize((int64_t)count, job->op->prep.divisor, q->output_zero_point,
                                            (const float *)job->x + first, y);
    else
        job->plan->kernels->s8_requantize((int64_t)count, q->input_zero_point[0], q->multiplier[0],
                                          q->output_zero_point, (const int8_t *)job->x + first, y);
}

/* Banded execution (bands.h) of a conversion: the band's chunk of elements (an int8 layer norm's [tokens] mean). */
static void run_conversion_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count,
                                void (*elements)(void *, size_t, size_t, size_t, size_t)) {
    const rl_tensor *output = rl_output(plan, op, 0);
    const size_t pixel = rl_band_pixel_elements(op, output);
    rl_conversion_job job = {.plan = plan, .op = (rl_op *)op, .x = rl_input(plan, op, 0)->data, .y = output->data};
    elements(&job, first * pixel, 0, count * pixel, 1);
}

static void run_quantize_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    run_conversion_rows(plan, op, first, count, quantize_elements);
}

rl_status rl_eval_quantize(rl_plan *plan, rl_op *op) {
    rl_conversion_job job = {.plan = plan, .op = op, .x = rl_input(plan, op, 0)->data,
                             .y = rl_output(plan, op, 0)->data};
    rl_parallelize_elements(plan, quantize_elements, &job, (size_t)rl_shape_count(&rl_output(plan, op, 0)->shape),
                            RL_ELEMENT_WORK);
    return RL_OK;
}

rl_status rl_prepare_dequantize(rl_plan *plan, rl_op *op) {
    rl_status s = same_shape(plan, op);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, output, "DEQUANTIZE's output", RL_FLOAT32)) != RL_OK) return s;
    if (input->dtype == RL_FLOAT16) return RL_OK;
    if (input->dtype == RL_INT16) return rl_prepare_dequantize_s16(plan, op); /* quantize_int16.c */
    if (input->dtype != RL_INT8)
        return rl_fail(plan, RL_UNSUPPORTED, "DEQUANTIZE from %s has no kernel (int8 or float16)",
                       rl_dtype_name(input->dtype));
    /* One scale, or one per channel of quantized_dimension (int8 weights dequantized per channel). */
    const int32_t count = input->q_count;
    if (count <= 0) return rl_fail(plan, RL_INVALID, "DEQUANTIZE's int8 input has no quantization scales");
    int32_t channels = 1, axis = 0;
    if (count > 1) {
        axis = input->q_dimension;
        if (axis < 0 || axis >= input->shape.rank || input->shape.dims[axis] != count)
            return rl_fail(plan, RL_INVALID, "DEQUANTIZE's input has %d scales for dimension %d of a rank-%d tensor",
                           count, axis, input->shape.rank);
        channels = count;
    }
    float *scales = (float *)rl_op_scratch(plan, op, (sizeof(float) + sizeof(int32_t)) * (size_t)channels);
    if (!scales) return RL_NO_MEMORY;
    int32_t *zero_points = (int32_t *)(scales + channels);
    for (int32_t c = 0; c < channels; ++c) {
        scales[c] = input->q_scales[c];
        if (!(scales[c] > 0.0f) || !isfinite(scales[c]))
            return rl_fail(plan, RL_INVALID, "DEQUANTIZE's input scale %d is %g, must be positive and finite", c,
                           (double)scales[c]);
        if (input->q_zero_points[c] < -128 || input->q_zero_points[c] > 127)
            return rl_fail(plan, RL_INVALID, "DEQUANTIZE's input zero point %d is %lld, outside int8's range", c,
                           (long long)input->q_zero_points[c]);
        zero_points[c] = (int32_t)input->q_zero_points[c];
    }
    int64_t outer = 1, inner = 1;
    if (count > 1) {
        for (int32_t d = 0; d < axis; ++d) outer *= input->shape.dims[d];
        for (int32_t d = axis + 1; d < input->shape.rank; ++d) inner *= input->shape.dims[d];
    } else {
        inner = rl_shape_count(&input->shape);
    }
    op->prep.outer = outer;
    op->prep.inner = inner;
    op->prep.axis = channels;
    if (outer == 1 && channels == 1) rl_offer_chunk_rows(op, output, run_dequantize_rows); /* one scale */
    return RL_OK;
}

static void dequantize_elements(void *context, size_t first, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_conversion_job *job = (const rl_conversion_job *)context;
    const float *scales = (const float *)job->op->scratch;
    const int32_t *zero_points = (const int32_t *)(scales + 1);
    job->plan->kernels->qs8_f32_vcvt(count, scales[0], zero_points[0], (const int8_t *)job->x + first,
                                     (float *)job->y + first);
}

static void run_dequantize_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    run_conversion_rows(plan, op, first, count, dequantize_elements);
}

rl_status rl_eval_dequantize(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    if (input->dtype == RL_FLOAT16) {
        plan->kernels->f16_f32_convert(rl_shape_count(&output->shape), (const uint16_t *)input->data,
                                       (float *)output->data);
        return RL_OK;
    }
    /* An [outer, channels, inner] view: each run of `inner` elements shares its channel's scale (one channel
     * and one run for a per-tensor scale, split across the threads: activations in a transformer). */
    if (op->prep.outer == 1 && op->prep.axis == 1) {
        rl_conversion_job job = {.plan = plan, .op = op, .x = input->data, .y = output->data};
        rl_parallelize_elements(plan, dequantize_elements, &job, (size_t)op->prep.inner, RL_ELEMENT_WORK);
        return RL_OK;
    }
    const float *scales = (const float *)op->scratch;
    const int32_t *zero_points = (const int32_t *)(scales + op->prep.axis);
    const int8_t *x = (const int8_t *)input->data;
    float *y = (float *)output->data;
    const size_t inner = (size_t)op->prep.inner;
    for (int64_t o = 0; o < op->prep.outer; ++o)
        for (int32_t c = 0; c < op->prep.axis; ++c, x += inner, y += inner)
            plan->kernels->qs8_f32_vcvt(inner, scales[c], zero_points[c], x, y);
    return RL_OK;
}
