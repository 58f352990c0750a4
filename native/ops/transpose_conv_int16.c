/* transpose_conv_int16.c — TRANSPOSE_CONV in TFLite's 16x8 mode: int16 input and output (zero point 0), int8
 * filter [out_c, kh, kw, in_c] with one scale per output channel (or one), optional int64 bias. Every (input
 * pixel, tap) adds its in_c products into an int64 sum per output element (exact, so the order is free), the bias
 * is added, and TFLite's MultiplyByQuantizedMultiplier for int64 (REDUCED64, qs16_gemm.h) gives the output, as
 * LiteRT 2.3's default Interpreter (its builtin kernel) computes it, with or without a bias. */
#include <string.h>

#include "transpose_conv.h"

typedef struct {
    rl_window_geometry g; /* the convolution transposed: g.in_* is the output, g.out_* the input */
    rl_qs16_requantization_params params;
    const rl_qs16_channel *channels; /* in op->scratch */
} rl_s16_transpose_conv_state;

typedef struct {
    const int16_t *input;
    const int8_t *filter;
    int64_t *acc;
    size_t oc, ic, filter_stride;
} rl_s16_scatter;

static void add_tap(void *context, int64_t pixel, int32_t tap, int64_t target) {
    const rl_s16_scatter *s = (const rl_s16_scatter *)context;
    const int16_t *x = s->input + pixel * (int64_t)s->ic;
    int64_t *acc = s->acc + target * (int64_t)s->oc;
    for (size_t o = 0; o < s->oc; ++o) {
        const int8_t *w = s->filter + o * s->filter_stride + (size_t)tap * s->ic;
        int64_t sum = 0;
        for (size_t k = 0; k < s->ic; ++k) sum += (int32_t)x[k] * w[k];
        acc[o] += sum;
    }
}

static rl_status run_transpose_conv_int16(rl_plan *plan, rl_op *op) {
    const rl_s16_transpose_conv_state *st = (const rl_s16_transpose_conv_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const rl_tensor *bias_t = rl_input(plan, op, 3);
    const int64_t *bias = bias_t ? (const int64_t *)bias_t->data : NULL;
    int16_t *output = (int16_t *)rl_output(plan, op, 0)->data;
    const size_t oc = (size_t)g->in_c, ic = (size_t)g->out_c;
    const int64_t pixels = (int64_t)g->batch * g->in_h * g->in_w;
    if (pixels > 0 && oc > 0) {
        int64_t *acc = (int64_t *)op->arena_scratch;
        memset(acc, 0, (size_t)pixels * oc * sizeof *acc);
        rl_s16_scatter scatter = {.input = (const int16_t *)rl_input(plan, op, 2)->data,
                                  .filter = (const int8_t *)rl_input(plan, op, 1)->data, .acc = acc, .oc = oc, .ic = ic,
                                  .filter_stride = (size_t)g->filter_h * (size_t)g->filter_w * ic};
        rl_transpose_conv_scatter(g, add_tap, &scatter);
        for (int64_t p = 0; p < pixels; ++p)
            for (size_t o = 0; o < oc; ++o) {
                const int64_t sum = acc[(size_t)p * oc + o] + (bias ? bias[o] : 0);
                output[(size_t)p * oc + o] = rl_qs16_requantize(sum, &st->channels[o], &st->params);
            }
    }
    rl_transpose_conv_ran(plan, op);
    return RL_OK;
}

rl_status rl_prepare_transpose_conv_int16(rl_plan *plan, rl_op *op) {
    const rl_tensor *filter = rl_input(plan, op, 1), *input = rl_input(plan, op, 2), *bias = rl_input(plan, op, 3);
    const rl_tensor *output = rl_output(plan, op, 0);
    rl_status s = rl_s16_check_16x8(plan, "TRANSPOSE_CONV", input, filter, bias, output, 0);
    if (s != RL_OK) return s;
    rl_window_geometry g;
    if ((s = rl_transpose_conv_geometry(plan, op, &g)) != RL_OK) return s;
    const rl_qs16_channel *channels;
    if ((s = rl_s16_channel_multipliers(plan, op, input, filter, output, g.in_c, 0, 0, rl_qs16_max_shift(RL_QS16_REDUCED64), &channels)) != RL_OK)
        return s;
    rl_s16_transpose_conv_state *st = (rl_s16_transpose_conv_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->g = g;
    st->params.rounding = RL_QS16_REDUCED64;
    if ((s = rl_quantized_activation_range(plan, op->params.conv.activation, output, &st->params.act_min,
                                           &st->params.act_max)) != RL_OK)
        return s;
    st->channels = channels;
    rl_request_arena_scratch(op, (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * (size_t)(g.in_c > 0 ? g.in_c : 1) *
                                     sizeof(int64_t));
    op->run = run_transpose_conv_int16;
    return RL_OK;
}
