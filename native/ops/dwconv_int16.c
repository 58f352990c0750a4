/* dwconv_int16.c — DEPTHWISE_CONV_2D in TFLite's 16x8 mode on s16_dwconv2d_rows_ref, output rows split across the
 * plan's threads. window.c computes the geometry and sends int16 inputs here. LiteRT's int16 depthwise kernel
 * takes an int64 bias only (it refuses int32), so rillet does too. */
#include "conv_gemm.h"

typedef struct {
    rl_window_geometry g;
    rl_qs16_requantization_params params;
    const rl_qs16_channel *channels; /* in op->scratch */
    const int16_t *input;
    const int8_t *filter;
    const int64_t *bias;
    int16_t *output;
} rl_s16_dwconv_state;

static void dwconv_rows(void *context, size_t row, size_t unused, size_t rows, size_t unused_count) {
    (void)unused;
    (void)unused_count;
    const rl_s16_dwconv_state *st = (const rl_s16_dwconv_state *)context;
    s16_dwconv2d_rows_ref(&st->g, &st->params, st->channels, st->input, st->filter, st->bias, st->output,
                          row, rows);
}

static rl_status run_dwconv_int16(rl_plan *plan, rl_op *op) {
    rl_s16_dwconv_state *st = (rl_s16_dwconv_state *)op->state;
    st->input = (const int16_t *)rl_input(plan, op, 0)->data;
    st->output = (int16_t *)rl_output(plan, op, 0)->data;
    const rl_window_geometry *g = &st->g;
    const size_t rows = (size_t)g->batch * (size_t)g->out_h;
    const size_t work = rows * (size_t)g->out_w * (size_t)g->out_c * (size_t)g->filter_h * (size_t)g->filter_w;
    rl_parallelize_rows(plan, dwconv_rows, st, rows, work);
    return RL_OK;
}

rl_status rl_prepare_dwconv2d_int16(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_tensor *output = rl_output(plan, op, 0);
    rl_status s = rl_s16_check_16x8(plan, "DEPTHWISE_CONV_2D", input, filter, bias, output, 0);
    if (s != RL_OK) return s;
    const rl_qs16_channel *channels;
    if ((s = rl_s16_channel_multipliers(plan, op, input, filter, output, g->out_c, 3, 0, rl_qs16_max_shift(RL_QS16_REDUCED64), &channels)) != RL_OK)
        return s;
    rl_s16_dwconv_state *st = (rl_s16_dwconv_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->g = *g;
    st->params.rounding = RL_QS16_REDUCED64;
    if ((s = rl_quantized_activation_range(plan, op->params.conv.activation, output, &st->params.act_min,
                                           &st->params.act_max)) != RL_OK)
        return s;
    st->channels = channels;
    st->filter = (const int8_t *)rl_known_data(filter);
    st->bias = bias ? (const int64_t *)rl_known_data(bias) : NULL;
    op->run = run_dwconv_int16;
    return RL_OK;
}
