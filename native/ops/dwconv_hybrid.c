/* dwconv_hybrid.c — hybrid DEPTHWISE_CONV_2D (float32 activations, int8 weights, depth multiplier 1, constant
 * weights and bias) on the qd8 depthwise micro-kernels (qd8_dwconv.h), with TFLite's EvalHybridPerChannel
 * arithmetic as the reference (qd8_f32_qc8w_dwconv2d_ref) has it: each image quantized as
 * f32_qs8_asymmetric_quantize_tflite_ref does, in parts across the threads (conv_hybrid_quantize.h), into arena
 * scratch at each invoke, padding taps pointed at a buffer of that image's zero point (adding nothing, as the
 * reference skips them), output rows split across the plan's threads. The weights are read in place (already [taps][channels]); the scales are
 * prepare's. Each output value is one kernel call's, so the result does not depend on the thread count. */
#include <string.h>

#include "conv_gemm.h"
#include "conv_hybrid_gemm.h"
#include "conv_hybrid_quantize.h"
#include "qd8_dwconv.h"

enum { MAX_TAPS = 64 }; /* larger filters stay on the reference */

typedef struct {
    rl_window_geometry g;
    size_t taps, image_bytes, zero_offset, quantization_offset, quantizer_offset;
    rl_qd8_dwconv_fn kernel;
    rl_image_quantizer quantizer; /* TFLite's quantization */
    rl_qd8_dwconv_params params; /* zero point and image scale set per image */
    /* Set at each invoke. */
    const int8_t *quantized, *filter;
    const rl_qd8_row_quantization *images;
    float *output;
} rl_qd8_dwconv_state;

static size_t round_up(size_t x, size_t multiple) { return (x + multiple - 1) / multiple * multiple; }

/* Output rows first .. first + count - 1 (of batch * out_h). */
static void dwconv_rows(void *context, size_t first, size_t unused, size_t count, size_t one) {
    (void)unused, (void)one;
    const rl_qd8_dwconv_state *st = (const rl_qd8_dwconv_state *)context;
    const rl_window_geometry *g = &st->g;
    const size_t channels = (size_t)g->out_c;
    const int8_t *zero = st->quantized + st->zero_offset;
    for (size_t row = first; row < first + count; ++row) {
        const size_t b = row / (size_t)g->out_h;
        const int32_t oy = (int32_t)(row % (size_t)g->out_h);
        rl_qd8_dwconv_params params = st->params;
        params.zero_point = st->images[b].zero_point;
        params.image_scale = st->images[b].scale;
        for (int32_t ox = 0; ox < g->out_w; ++ox) {
            const int8_t *taps[MAX_TAPS];
            for (int32_t fy = 0; fy < g->filter_h; ++fy)
                for (int32_t fx = 0; fx < g->filter_w; ++fx)
                    taps[fy * g->filter_w + fx] = (const int8_t *)rl_window_tap(
                        g, (const char *)st->quantized, channels, zero + b * channels, b, oy, ox, fy, fx);
            st->kernel(channels, st->taps, taps, st->filter, &params,
                       st->output + (row * (size_t)g->out_w + (size_t)ox) * channels);
        }
    }
}

static rl_status run_qd8_dwconv(rl_plan *plan, rl_op *op) {
    rl_qd8_dwconv_state *st = (rl_qd8_dwconv_state *)op->state;
    const rl_tensor *bias = rl_input(plan, op, 2);
    const float *input = (const float *)rl_input(plan, op, 0)->data;
    int8_t *scratch = (int8_t *)op->arena_scratch;
    rl_qd8_row_quantization *images = (rl_qd8_row_quantization *)(void *)(scratch + st->quantization_offset);
    const size_t channels = (size_t)st->g.in_c;
    rl_quantize_images(plan, &st->quantizer, input, scratch, scratch + st->quantizer_offset, images);
    for (size_t b = 0; b < (size_t)st->g.batch; ++b)
        memset(scratch + st->zero_offset + b * channels, (int)(int8_t)images[b].zero_point, channels);
    st->quantized = scratch;
    st->images = images;
    st->filter = (const int8_t *)rl_input(plan, op, 1)->data;
    st->params.bias = bias ? (const float *)bias->data : NULL;
    st->output = (float *)rl_output(plan, op, 0)->data;
    const size_t rows = (size_t)st->g.batch * (size_t)st->g.out_h;
    rl_parallelize_rows(plan, dwconv_rows, st, rows, rows * (size_t)st->g.out_w * st->taps * channels);
    return RL_OK;
}

rl_status rl_use_qd8_dwconv(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const size_t taps = (size_t)g->filter_h * (size_t)g->filter_w;
    if (!rl_known_data(filter) || (bias && !rl_known_data(bias)) || !op->scratch || g->depth_multiplier != 1 ||
        taps == 0 || taps > MAX_TAPS || g->out_c <= 0 || g->batch <= 0 || g->out_h <= 0 || g->out_w <= 0)
        return RL_OK;
    rl_qd8_dwconv_state *st = (rl_qd8_dwconv_state *)rl_op_state(plan, op, sizeof(rl_qd8_dwconv_state));
    if (!st) return RL_NO_MEMORY;
    st->g = *g;
    st->taps = taps;
    st->image_bytes = (size_t)g->in_h * (size_t)g->in_w * (size_t)g->in_c;
    st->zero_offset = round_up((size_t)g->batch * st->image_bytes, 64);
    st->quantization_offset = round_up(st->zero_offset + (size_t)g->batch * (size_t)g->in_c, 64);
    st->quantizer_offset = round_up(st->quantization_offset + (size_t)g->batch * sizeof(rl_qd8_row_quantization), 64);
    const size_t quantizer_bytes = rl_image_quantizer_init(&st->quantizer, &plan->kernels->qd8_quantize, 1,
                                                           (size_t)g->batch, st->image_bytes);
    rl_request_arena_scratch(op, st->quantizer_offset + quantizer_bytes);
    st->kernel = plan->kernels->qd8_dwconv;
    st->params = (rl_qd8_dwconv_params){.scale_first_end = (size_t)(g->out_c - g->out_c % 4),
                                        .scales = (const float *)op->scratch,
                                        .clamp = {.min = g->act_min, .max = g->act_max}};
    op->run = run_qd8_dwconv;
    return RL_OK;
}
