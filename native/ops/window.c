/* window.c — CONV_2D, DEPTHWISE_CONV_2D, MAX_POOL_2D, AVERAGE_POOL_2D: shapes, TFLite's SAME/VALID offsets. */
#include "conv_gemm.h"

/* TFLite's output size and leading padding for one spatial axis. */
static rl_status window_axis(rl_plan *plan, const char *axis, int32_t padding, int32_t in, int32_t filter,
                             int32_t stride, int32_t dilation, int32_t *out, int32_t *pad) {
    if (stride < 1 || dilation < 1)
        return rl_fail(plan, RL_INVALID, "%s stride %d and dilation %d must be at least 1", axis, stride, dilation);
    /* In 64 bits: a hostile file's stride or dilation near 2^31 must give an error, not an overflow. */
    const int64_t effective = ((int64_t)filter - 1) * dilation + 1;
    int64_t size;
    if (padding == RL_PADDING_SAME) size = ((int64_t)in + stride - 1) / stride;
    else if (padding == RL_PADDING_VALID) size = ((int64_t)in - effective + stride) / stride;
    else return rl_fail(plan, RL_INVALID, "padding %d is neither SAME nor VALID", padding);
    if (size < 1 || effective > INT32_MAX)
        return rl_fail(plan, RL_INVALID, "%s: input %d is smaller than the %lld-wide window", axis, in,
                       (long long)effective);
    *out = (int32_t)size;
    const int64_t total = (size - 1) * stride + effective - in;
    if (total > INT32_MAX) return rl_fail(plan, RL_INVALID, "%s: the padding would exceed 2^31", axis);
    *pad = total > 0 ? total / 2 : 0;
    return RL_OK;
}

static rl_status rl_window_geometry_of(rl_plan *plan, const rl_tensor *input, int32_t padding, int32_t filter_h,
                                       int32_t filter_w, int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                                int32_t dilation_w, rl_window_geometry *g) {
    if (input->shape.rank != 4)
        return rl_fail(plan, RL_INVALID, "input must be 4-D NHWC, has rank %d", input->shape.rank);
    g->batch = input->shape.dims[0];
    g->in_h = input->shape.dims[1];
    g->in_w = input->shape.dims[2];
    g->in_c = input->shape.dims[3];
    g->filter_h = filter_h;
    g->filter_w = filter_w;
    g->stride_h = stride_h;
    g->stride_w = stride_w;
    g->dilation_h = dilation_h;
    g->dilation_w = dilation_w;
    rl_status s = window_axis(plan, "height", padding, g->in_h, filter_h, stride_h, dilation_h, &g->out_h, &g->pad_h);
    if (s != RL_OK) return s;
    return window_axis(plan, "width", padding, g->in_w, filter_w, stride_w, dilation_w, &g->out_w, &g->pad_w);
}

static rl_status prepare_conv(rl_plan *plan, rl_op *op, int depthwise) {
    rl_status s = rl_expect_inputs(plan, op, 2, 3);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_conv_params *p = &op->params.conv;
    const int quantized = input->dtype == RL_INT8 || filter->dtype == RL_INT8; /* conv_int8.c checks dtypes */
    if (!quantized) {
        if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
        if ((s = rl_expect_dtype(plan, filter, "filter", RL_FLOAT32)) != RL_OK) return s;
        if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    }
    if (filter->shape.rank != 4) return rl_fail(plan, RL_INVALID, "filter must be 4-D, has rank %d", filter->shape.rank);
    rl_window_geometry g;
    s = rl_window_geometry_of(plan, input, p->padding, filter->shape.dims[1], filter->shape.dims[2], p->stride_h,
                              p->stride_w, p->dilation_h, p->dilation_w, &g);
    if (s != RL_OK) return s;
    g.out_c = depthwise ? filter->shape.dims[3] : filter->shape.dims[0];
    if (depthwise) {
        if (filter->shape.dims[0] != 1) return rl_fail(plan, RL_INVALID, "depthwise filter must have leading dimension 1");
        if (g.in_c == 0 || g.out_c % g.in_c != 0)
            return rl_fail(plan, RL_INVALID, "input has %d channels, filter has %d (not a multiple)", g.in_c, g.out_c);
        g.depth_multiplier = g.out_c / g.in_c;
    } else if (filter->shape.dims[3] != g.in_c) {
        return rl_fail(plan, RL_INVALID, "input has %d channels, filter expects %d", g.in_c, filter->shape.dims[3]);
    }
    if (bias) {
        if (!quantized && (s = rl_expect_dtype(plan, bias, "bias", RL_FLOAT32)) != RL_OK) return s;
        if (rl_shape_count(&bias->shape) != g.out_c)
            return rl_fail(plan, RL_INVALID, "bias has %lld elements, the filter %d output channels",
                           (long long)rl_shape_count(&bias->shape), g.out_c);
    }
    if ((s = rl_activation_range(plan, p->activation, &g.act_min, &g.act_max)) != RL_OK) return s;
    output->shape.rank = 4;
    output->shape.dims[0] = g.batch;
    output->shape.dims[1] = g.out_h;
    output->shape.dims[2] = g.out_w;
    output->shape.dims[3] = g.out_c;
    op->prep.pad_h = g.pad_h;
    op->prep.pad_w = g.pad_w;
    op->prep.act_min = g.act_min;
    op->prep.act_max = g.act_max;
    op->prep.perm[0] = g.depth_multiplier;
    if (quantized && input->dtype == RL_FLOAT32) return rl_prepare_conv2d_hybrid(plan, op, &g, depthwise);
    if (input->dtype == RL_INT16) /* TFLite's 16x8 mode */
        return depthwise ? rl_prepare_dwconv2d_int16(plan, op, &g) : rl_prepare_conv2d_int16(plan, op, &g);
    if (quantized && (s = rl_prepare_conv2d_quantized(plan, op, &g, depthwise)) != RL_OK) return s;
    return depthwise ? rl_use_dwconv(plan, op, &g) : rl_use_gemm_conv2d(plan, op, &g);
}

/* Rebuilds the geometry from shapes and op->prep: prepare did the checking. */
static void geometry(rl_plan *plan, const rl_op *op, rl_window_geometry *g, int32_t filter_h, int32_t filter_w,
                     int32_t stride_h, int32_t stride_w, int32_t dilation_h, int32_t dilation_w) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    g->batch = in->shape.dims[0];
    g->in_h = in->shape.dims[1];
    g->in_w = in->shape.dims[2];
    g->in_c = in->shape.dims[3];
    g->out_h = out->shape.dims[1];
    g->out_w = out->shape.dims[2];
    g->out_c = out->shape.dims[3];
    g->filter_h = filter_h;
    g->filter_w = filter_w;
    g->stride_h = stride_h;
    g->stride_w = stride_w;
    g->dilation_h = dilation_h;
    g->dilation_w = dilation_w;
    g->pad_h = op->prep.pad_h;
    g->pad_w = op->prep.pad_w;
    g->depth_multiplier = op->prep.perm[0];
    g->act_min = op->prep.act_min;
    g->act_max = op->prep.act_max;
}

static rl_status eval_conv(rl_plan *plan, rl_op *op, int depthwise) {
    const rl_conv_params *p = &op->params.conv;
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    rl_window_geometry g;
    geometry(plan, op, &g, filter->shape.dims[1], filter->shape.dims[2], p->stride_h, p->stride_w, p->dilation_h,
             p->dilation_w);
    if (filter->dtype == RL_INT8)
        return rl_input(plan, op, 0)->dtype == RL_FLOAT32 ? rl_eval_conv2d_hybrid(plan, op, &g, depthwise)
                                                          : rl_eval_conv2d_quantized(plan, op, &g, depthwise);
    rl_f32_window_fn fn = depthwise ? plan->kernels->f32_dwconv2d : plan->kernels->f32_conv2d;
    fn(&g, (const float *)rl_input(plan, op, 0)->data, (const float *)filter->data,
       bias ? (const float *)bias->data : NULL, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_conv2d(rl_plan *plan, rl_op *op) { return prepare_conv(plan, op, 0); }
rl_status rl_prepare_dwconv2d(rl_plan *plan, rl_op *op) { return prepare_conv(plan, op, 1); }
rl_status rl_eval_conv2d(rl_plan *plan, rl_op *op) { return eval_conv(plan, op, 0); }
rl_status rl_eval_dwconv2d(rl_plan *plan, rl_op *op) { return eval_conv(plan, op, 1); }

static rl_status prepare_pool(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    const rl_pool_params *p = &op->params.pool;
    const int32_t dtype = input->dtype == RL_INT8 || input->dtype == RL_INT16 ? input->dtype : RL_FLOAT32;
    if ((s = rl_expect_dtype(plan, input, "input", dtype)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", dtype)) != RL_OK) return s;
    if (p->filter_h < 1 || p->filter_w < 1)
        return rl_fail(plan, RL_INVALID, "filter %dx%d must be at least 1x1", p->filter_h, p->filter_w);
    rl_window_geometry g;
    s = rl_window_geometry_of(plan, input, p->padding, p->filter_h, p->filter_w, p->stride_h, p->stride_w, 1, 1, &g);
    if (s != RL_OK) return s;
    if ((s = rl_activation_range(plan, p->activation, &g.act_min, &g.act_max)) != RL_OK) return s;
    output->shape.rank = 4;
    output->shape.dims[0] = g.batch;
    output->shape.dims[1] = g.out_h;
    output->shape.dims[2] = g.out_w;
    output->shape.dims[3] = g.in_c;
    op->prep.pad_h = g.pad_h;
    op->prep.pad_w = g.pad_w;
    op->prep.act_min = g.act_min;
    op->prep.act_max = g.act_max;
    if (dtype == RL_INT8 && (s = rl_prepare_pool2d_s8(plan, op)) != RL_OK) return s;
    g.out_c = g.in_c;
    if (dtype == RL_INT16) return rl_prepare_pool2d_s16(plan, op, &g); /* pool_int16.c */
    return rl_use_pool_driver(plan, op, &g);
}

static rl_status eval_pool(rl_plan *plan, rl_op *op, rl_f32_window_fn fn) {
    const rl_pool_params *p = &op->params.pool;
    rl_window_geometry g;
    geometry(plan, op, &g, p->filter_h, p->filter_w, p->stride_h, p->stride_w, 1, 1);
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_pool2d_s8(plan, op, &g);
    fn(&g, (const float *)rl_input(plan, op, 0)->data, NULL, NULL, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_pool2d(rl_plan *plan, rl_op *op) { return prepare_pool(plan, op); }
rl_status rl_eval_maxpool2d(rl_plan *plan, rl_op *op) { return eval_pool(plan, op, plan->kernels->f32_maxpool2d); }
rl_status rl_eval_avgpool2d(rl_plan *plan, rl_op *op) { return eval_pool(plan, op, plan->kernels->f32_avgpool2d); }
