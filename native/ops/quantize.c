/* quantize.c — QUANTIZE (float32 to int8, per tensor or per channel; int8 to int8; int8 to uint8 and back in
 * quantize_int8_uint8.c) and DEQUANTIZE (int8 or float16 to float32).
 *
 * What LiteRT's default Interpreter gives is XNNPACK's conversions (its delegate takes both ops), so the
 * kernels follow those (kernels.h says how each rounds); a per-channel QUANTIZE, which XNNPACK declines, follows
 * TFLite's reference kernel. A DEQUANTIZE of a constant (int8 or float16 weights) is folded when the plan is
 * prepared. */
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

/* A per-channel QUANTIZE's state: the output as [outer, channels, inner] around its quantized dimension, and
 * each channel's scale and zero point. */
typedef struct {
    int64_t outer, inner;
    int32_t channels;
    float *scales;
    int32_t *zero_points;
} rl_quantize_per_channel_state;

static rl_status run_quantize_per_channel(rl_plan *plan, rl_op *op) {
    const rl_quantize_per_channel_state *st = (const rl_quantize_per_channel_state *)op->state;
    const float *x = (const float *)rl_input(plan, op, 0)->data;
    int8_t *y = (int8_t *)rl_output(plan, op, 0)->data;
    if (st->channels == 1) {
        /* TFLite's per-tensor kernel (optimized_ops::AffineQuantize) converts blocks of 8 by SIMD, x times the
         * reciprocal rounded half to even (vcvtnq_s32_f32; _mm_cvtps_epi32 on x86), the XNNPACK conversion's
         * arithmetic, and the last 1-7 elements as its per-channel kernel does. */
        const int64_t blocks = st->inner / 8 * 8;
        f32_s8_quantize_ref(blocks, 1.0f / st->scales[0], st->zero_points[0], x, y);
        f32_qc8_quantize_ref(1, (size_t)(st->inner - blocks), st->scales, st->zero_points, x + blocks, y + blocks);
        return RL_OK;
    }
    const size_t row = (size_t)st->channels * (size_t)st->inner;
    for (int64_t o = 0; o < st->outer; ++o, x += row, y += row)
        f32_qc8_quantize_ref((size_t)st->channels, (size_t)st->inner, st->scales, st->zero_points, x, y);
    return RL_OK;
}

/* TFLite's QUANTIZE kernel, per channel (or per tensor: one channel over every element). */
static rl_status prepare_quantize_per_channel(rl_plan *plan, rl_op *op) {
    const rl_tensor *output = rl_output(plan, op, 0);
    const int32_t count = output->q_count, axis = output->q_dimension;
    if (count < 1) return rl_fail(plan, RL_INVALID, "QUANTIZE's output has no quantization scales");
    if (count > 1 && (axis < 0 || axis >= output->shape.rank || output->shape.dims[axis] != count))
        return rl_fail(plan, RL_INVALID, "QUANTIZE's output has %d scales for dimension %d of a rank-%d tensor",
                       count, axis, output->shape.rank);
    const size_t bytes[3] = {sizeof(rl_quantize_per_channel_state), sizeof(float) * (size_t)count,
                             sizeof(int32_t) * (size_t)count};
    void *parts[3];
    rl_quantize_per_channel_state *st = (rl_quantize_per_channel_state *)rl_op_state_parts(plan, op, 3, bytes, parts);
    if (!st) return RL_NO_MEMORY;
    st->scales = (float *)parts[1];
    st->zero_points = (int32_t *)parts[2];
    for (int32_t c = 0; c < count; ++c) {
        st->scales[c] = output->q_scales[c];
        if (!(st->scales[c] > 0.0f) || !isfinite(st->scales[c]))
            return rl_fail(plan, RL_INVALID, "QUANTIZE's output scale %d is %g, must be positive and finite", c,
                           (double)st->scales[c]);
        if (output->q_zero_points[c] < -128 || output->q_zero_points[c] > 127)
            return rl_fail(plan, RL_INVALID, "QUANTIZE's output zero point %d is %lld, outside int8's range", c,
                           (long long)output->q_zero_points[c]);
        st->zero_points[c] = (int32_t)output->q_zero_points[c];
    }
    st->channels = count;
    st->outer = st->inner = 1;
    if (count == 1) {
        st->inner = rl_shape_count(&output->shape);
    } else {
        for (int32_t d = 0; d < axis; ++d) st->outer *= output->shape.dims[d];
        for (int32_t d = axis + 1; d < output->shape.rank; ++d) st->inner *= output->shape.dims[d];
    }
    op->run = run_quantize_per_channel;
    return RL_OK;
}

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
    /* XNNPACK declines a QUANTIZE whose output names a quantized dimension (per channel, or one scale with a
     * dimension other than 0); LiteRT then runs TFLite's kernel, which rounds differently. */
    if (input->dtype == RL_FLOAT32 && (output->q_count > 1 || output->q_dimension != 0))
        return prepare_quantize_per_channel(plan, op);
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
