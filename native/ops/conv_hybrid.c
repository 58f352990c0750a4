/* conv_hybrid.c — hybrid (dynamic-range) CONV_2D, DEPTHWISE_CONV_2D and BATCH_MATMUL: float32 activations,
 * int8 constant weights with zero point 0 (one scale, or one per output channel), float32 bias, float32
 * output, as TensorFlow's converter writes them with Optimize.DEFAULT and no representative data. window.c
 * and matmul.c compute the shapes and dispatch here when the input is float32 and the weights int8.
 *
 * Measured against LiteRT 2.3's default Interpreter (AUTO, which applies XNNPACK), on random cases:
 * - CONV_2D goes to XNNPACK's dynamically quantized convolution: each image quantized asymmetrically (one
 *   scale and zero point for its H * W * C values), per-tensor and per-channel filters alike; a 1x1 filter
 *   with stride 1 becomes a fully connected product whose rows (pixels) are quantized one by one, unless
 *   it has a single input and a single output channel. TFLite's
 *   own kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES, BUILTIN_REF) agree for per-channel filters but quantize
 *   each image symmetrically for a per-tensor filter, and never per pixel: about 5e-3 apart.
 * - DEPTHWISE_CONV_2D stays with TFLite's EvalHybridPerChannel (XNNPACK does not take it): each image
 *   quantized asymmetrically. A per-tensor filter (one scale, as `rillet quantize --per-tensor --mode dynamic`
 *   writes) runs with that scale for every channel. LiteRT refuses it when the scale's quantized dimension is
 *   3; when it is 0 LiteRT runs it but its per-channel kernel reads scales past the one there is, so only its
 *   channel 0 is right (channels 1.. are garbage, up to 1e34): rillet gives what LiteRT gives for the same
 *   scale repeated per channel (tests/runtime/test_hybrid_depthwise_per_tensor.py).
 * - BATCH_MATMUL goes to XNNPACK like hybrid FULLY_CONNECTED: each row of x quantized asymmetrically,
 *   whatever asymmetric_quantize_inputs says (TFLite's kernel quantizes symmetrically when it is false). */
#include <stdio.h>

#include "conv_hybrid_gemm.h"

/* op->prep.axis for CONV_2D: 1 when XNNPACK quantizes per pixel (1x1 filter, stride 1), else 0. */

static rl_status expect_float(rl_plan *plan, const rl_tensor *output, const rl_tensor *bias, const char *op) {
    char what[64];
    snprintf(what, sizeof what, "hybrid %s's output", op);
    rl_status s = rl_expect_dtype(plan, output, what, RL_FLOAT32);
    if (s != RL_OK || !bias) return s;
    snprintf(what, sizeof what, "hybrid %s's bias", op);
    return rl_expect_dtype(plan, bias, what, RL_FLOAT32);
}

rl_status rl_prepare_conv2d_hybrid(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2), *output = rl_output(plan, op, 0);
    rl_status s = expect_float(plan, output, bias, depthwise ? "depthwise convolution" : "convolution");
    if (s != RL_OK) return s;
    if (filter->dtype != RL_INT8)
        return rl_fail(plan, RL_INVALID, "filter is %s, expected float32 or int8", rl_dtype_name(filter->dtype));
    const size_t channels = (size_t)(g->out_c > 0 ? g->out_c : 1);
    const size_t image = (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    float *scales = (float *)rl_op_scratch(plan, op, sizeof(float) * channels);
    if (!scales) return RL_NO_MEMORY;
    if ((s = rl_s8_filter_scales(plan, op, filter, g->out_c, depthwise ? 3 : 0, scales)) != RL_OK) return s;
    /* Measured: per pixel for a 1x1 filter with stride 1, except with one input and one output channel (which
     * XNNPACK's subgraph takes for a depthwise convolution, quantized per image like the others). */
    op->prep.axis = !depthwise && g->filter_h == 1 && g->filter_w == 1 && g->stride_h == 1 && g->stride_w == 1 &&
                    !(g->in_c == 1 && g->out_c == 1);
    /* Constant weights: the qd8 micro-kernels run the op (conv_hybrid_gemm.c, packed weights; dwconv_hybrid.c,
     * TFLite's EvalHybridPerChannel arithmetic, weights read in place), with the scratch they ask for. */
    s = depthwise ? rl_use_qd8_dwconv(plan, op, g) : rl_use_qd8_gemm_conv2d(plan, op, g, op->prep.axis);
    if (s == RL_OK && !op->run) rl_request_arena_scratch(op, image + 1); /* the reference's quantized image */
    return s;
}

rl_status rl_eval_conv2d_hybrid(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const float *input = (const float *)rl_input(plan, op, 0)->data, *b = bias ? (const float *)bias->data : NULL;
    const float *scales = (const float *)op->scratch;
    int8_t *scratch = (int8_t *)op->arena_scratch;
    float *output = (float *)rl_output(plan, op, 0)->data;
    if (op->prep.axis) /* pixels are the rows of a fully connected product; OHWI 1x1 is [units, depth] */
        plan->kernels->qd8_f32_qc8w_fully_connected((int64_t)g->batch * g->in_h * g->in_w, g->in_c, g->out_c, input,
                                                    (const int8_t *)filter->data, scales, b, g->act_min, g->act_max,
                                                    scratch, output);
    else
        (depthwise ? plan->kernels->qd8_f32_qc8w_dwconv2d : plan->kernels->qd8_f32_qc8w_conv2d)(
            g, input, (const int8_t *)filter->data, scales, b, scratch, output);
    return RL_OK;
}

/* y quantized per tensor, or per output column (y's last axis, or its second last with adj_y). */
rl_status rl_prepare_batch_matmul_hybrid(rl_plan *plan, rl_op *op) {
    const rl_tensor *b = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    rl_status s = expect_float(plan, output, NULL, "batch matmul");
    if (s != RL_OK) return s;
    const int32_t k = op->prep.perm[1], n = op->prep.perm[2];
    const int32_t axis = op->params.batch_matmul.adj_y ? b->shape.rank - 2 : b->shape.rank - 1;
    float *scales = (float *)rl_op_scratch(plan, op, sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!scales) return RL_NO_MEMORY;
    if ((s = rl_s8_filter_scales(plan, op, b, n, axis, scales)) != RL_OK) return s;
    s = rl_use_qd8_gemm_batch_matmul(plan, op, op->prep.perm[0], k, n); /* constant y: the micro-kernels */
    if (s == RL_OK && !op->run) rl_request_arena_scratch(op, (size_t)k + 1); /* the reference's quantized row */
    return s;
}

rl_status rl_eval_batch_matmul_hybrid(rl_plan *plan, rl_op *op) {
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    const int32_t n = op->prep.perm[2];
    const float *scales = (const float *)op->scratch;
    plan->kernels->qd8_f32_qc8w_batch_matmul(&op->prep.bc, op->prep.perm[0], op->prep.perm[1], n, p->adj_x, p->adj_y,
                                             (const float *)rl_input(plan, op, 0)->data,
                                             (const int8_t *)rl_input(plan, op, 1)->data, scales, 1,
                                             (int8_t *)op->arena_scratch, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
