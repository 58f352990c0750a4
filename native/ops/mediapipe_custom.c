/* mediapipe_custom.c — the MediaPipe custom ops LiteRT's default Interpreter runs (its XNNPACK delegate takes
 * them), registered by their custom names (tflite_reader.c maps a name to an internal code, RL_OP_CUSTOM_*):
 * Convolution2DTransposeBias, a transposed convolution with bias whose options are the raw struct
 * {padding (TfLitePadding: 1 SAME, 2 VALID), stride_width, stride_height} (decoded by the reader into
 * params.conv). Output size: SAME the input times the stride, VALID (input - 1) * stride + kernel; SAME
 * pads max(kernel - stride, 0) / 2 before, as XNNPACK's TensorFlow-SAME deconvolution. MaxPoolingWithArgmax2D
 * and MaxUnpooling2D live in mediapipe_pooling.c. */
#include "f32_deconv_bias.h"
#include "ops.h"

typedef struct {
    rl_window_geometry g; /* the convolution transposed: g.in_* is the output, g.out_* the input */
    rl_f32_window_fn deconv; /* f32_deconv_bias_ref, or its build with hardware FMA on x86-64 AVX2 paths */
} rl_deconv_bias_state;

RL_STATIC_ASSERT(sizeof(rl_deconv_bias_state) <= 128, "rl_deconv_bias_state is a small struct");

static rl_status run_deconv_bias(rl_plan *plan, rl_op *op) {
    const rl_deconv_bias_state *st = (const rl_deconv_bias_state *)op->state;
    const rl_tensor *bias = rl_input(plan, op, 2);
    st->deconv(&st->g, (const float *)rl_input(plan, op, 0)->data, (const float *)rl_input(plan, op, 1)->data,
               bias ? (const float *)bias->data : NULL, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_deconv_bias(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 3);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_conv_params *p = &op->params.conv;
    if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, filter, "filter", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if (bias && (s = rl_expect_dtype(plan, bias, "bias", RL_FLOAT32)) != RL_OK) return s;
    if (input->shape.rank != 4 || filter->shape.rank != 4)
        return rl_fail(plan, RL_INVALID, "input and filter must be 4-D (have ranks %d and %d)", input->shape.rank,
                       filter->shape.rank);
    if (p->stride_h < 1 || p->stride_w < 1 || p->stride_h > 4096 || p->stride_w > 4096)
        return rl_fail(plan, RL_INVALID, "strides %d x %d", p->stride_h, p->stride_w);
    if (filter->shape.dims[3] != input->shape.dims[3])
        return rl_fail(plan, RL_INVALID, "filter takes %d channels, the input has %d", filter->shape.dims[3],
                       input->shape.dims[3]);
    if (bias && rl_shape_count(&bias->shape) != filter->shape.dims[0])
        return rl_fail(plan, RL_INVALID, "bias has %lld values for %d output channels",
                       (long long)rl_shape_count(&bias->shape), filter->shape.dims[0]);
    rl_deconv_bias_state *st = (rl_deconv_bias_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    rl_window_geometry *g = &st->g;
    *g = (rl_window_geometry){.batch = input->shape.dims[0], .out_h = input->shape.dims[1], .out_w = input->shape.dims[2],
                              .out_c = input->shape.dims[3], .in_c = filter->shape.dims[0],
                              .filter_h = filter->shape.dims[1], .filter_w = filter->shape.dims[2],
                              .stride_h = p->stride_h, .stride_w = p->stride_w, .dilation_h = 1, .dilation_w = 1,
                              .depth_multiplier = 1};
    const int same = p->padding == RL_PADDING_SAME;
    const int64_t h = same ? (int64_t)g->out_h * g->stride_h : (int64_t)(g->out_h - 1) * g->stride_h + g->filter_h;
    const int64_t w = same ? (int64_t)g->out_w * g->stride_w : (int64_t)(g->out_w - 1) * g->stride_w + g->filter_w;
    if (h < 0 || w < 0 || h > INT32_MAX || w > INT32_MAX) return rl_fail(plan, RL_INVALID, "the output would be %lld x %lld", (long long)h, (long long)w);
    g->in_h = (int32_t)h;
    g->in_w = (int32_t)w;
    g->pad_h = same && g->filter_h > g->stride_h ? (g->filter_h - g->stride_h) / 2 : 0;
    g->pad_w = same && g->filter_w > g->stride_w ? (g->filter_w - g->stride_w) / 2 : 0;
    output->shape = (rl_shape){.rank = 4, .dims = {g->batch, g->in_h, g->in_w, g->in_c}};
    st->deconv = f32_deconv_bias_ref;
#if defined(__x86_64__) || defined(_M_X64)
    if (plan->isa == RL_ISA_AVX2 || plan->isa == RL_ISA_AVX512 || plan->isa == RL_ISA_AVX512VNNI)
        st->deconv = f32_deconv_bias__avx2;
#endif
    op->run = run_deconv_bias;
    return RL_OK;
}

rl_status rl_eval_deconv_bias(rl_plan *plan, rl_op *op) { return run_deconv_bias(plan, op); }
