/* transpose_conv_int8.c — TRANSPOSE_CONV, int8: int8 input and output (one scale each), int8 filter
 * [out_c, kh, kw, in_c] with one scale per output channel (or one), optional int32 bias.
 *
 * LiteRT 2.3's default Interpreter runs this op in TFLite's optimized builtin kernel (XNNPACK does not take
 * it: AUTO and BUILTIN agree on every file tried, constant filter and known output shape included), so this
 * driver follows that kernel: every (input pixel, tap) adds its in_c products into an int32 sum per output
 * element (exact, so the order is free), the bias is added, and each channel's sum is requantized with
 * TFLite's multiplier and shift of input_scale * filter_scale / output_scale in double, rounded once
 * (rl_mul_by_quantized_multiplier_single). TFLite's reference kernel (BUILTIN_REF) rounds twice and so
 * differs by one on ties; the default Interpreter is the oracle. Not yet exact: on a few ties in some files
 * (test_int8_transpose_conv_neg.py's xfails) LiteRT's optimized kernel gives the double rounding's result. */
#include <string.h>

#include "qs8_qc8w_deconv.h"
#include "quant.h"
#include "transpose_conv.h"

typedef struct {
    rl_window_geometry g; /* the convolution transposed: g.in_* is the output, g.out_* the input */
    int32_t input_zero_point, output_zero_point, act_min, act_max;
    rl_qs8_qc8w_deconv_tap_fn tap;
    int32_t *multiplier, *shift; /* per output channel, parts of the state */
} rl_s8_transpose_conv_state;

RL_STATIC_ASSERT(sizeof(rl_s8_transpose_conv_state) <= 128, "rl_s8_transpose_conv_state is a small struct");

static rl_status run_transpose_conv_int8(rl_plan *plan, rl_op *op) {
    const rl_s8_transpose_conv_state *st = (const rl_s8_transpose_conv_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const int8_t *input = (const int8_t *)rl_input(plan, op, 2)->data;
    const int8_t *filter = (const int8_t *)rl_input(plan, op, 1)->data;
    const rl_tensor *bias_t = rl_input(plan, op, 3);
    const int32_t *bias = bias_t ? (const int32_t *)bias_t->data : NULL;
    int8_t *output = (int8_t *)rl_output(plan, op, 0)->data;
    uint32_t *acc = (uint32_t *)op->arena_scratch;
    const size_t oc = (size_t)g->in_c, ic = (size_t)g->out_c;
    const size_t filter_stride = (size_t)g->filter_h * (size_t)g->filter_w * ic;
    const int64_t pixels = (int64_t)g->batch * g->in_h * g->in_w;
    memset(acc, 0, (size_t)pixels * oc * sizeof *acc);
    for (int32_t b = 0; b < g->batch; ++b)
        for (int32_t y = 0; y < g->out_h; ++y)
            for (int32_t x = 0; x < g->out_w; ++x) {
                const int8_t *in = input + (((int64_t)b * g->out_h + y) * g->out_w + x) * (int64_t)ic;
                for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                    const int64_t oy = (int64_t)y * g->stride_h - g->pad_h + fy; /* hostile strides: no overflow */
                    if (oy < 0 || oy >= g->in_h) continue;
                    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                        const int64_t ox = (int64_t)x * g->stride_w - g->pad_w + fx;
                        if (ox < 0 || ox >= g->in_w) continue;
                        st->tap(oc, ic, in, st->input_zero_point, filter + ((size_t)fy * g->filter_w + fx) * ic,
                                filter_stride, acc + (((int64_t)b * g->in_h + oy) * g->in_w + ox) * (int64_t)oc);
                    }
                }
            }
    for (int64_t p = 0; p < pixels; ++p)
        for (size_t o = 0; o < oc; ++o) {
            const size_t i = (size_t)p * oc + o;
            const int32_t sum = (int32_t)(acc[i] + (bias ? (uint32_t)bias[o] : 0u));
            const int32_t v = rl_mul_by_quantized_multiplier_single(sum, st->multiplier[o], st->shift[o]) +
                              st->output_zero_point;
            output[i] = (int8_t)rl_clamp_i32(v, st->act_min, st->act_max);
        }
    return RL_OK;
}

rl_status rl_prepare_transpose_conv_int8(rl_plan *plan, rl_op *op) {
    const rl_tensor *filter = rl_input(plan, op, 1), *input = rl_input(plan, op, 2), *bias = rl_input(plan, op, 3);
    const rl_tensor *output = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_dtype(plan, filter, "filter", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_INT8)) != RL_OK) return s;
    if (bias && (s = rl_expect_dtype(plan, bias, "bias", RL_INT32)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, input, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "output")) != RL_OK) return s;
    rl_window_geometry g;
    if ((s = rl_transpose_conv_geometry(plan, op, &g)) != RL_OK) return s;
    const size_t channels = (size_t)(g.in_c > 0 ? g.in_c : 1);
    const size_t sizes[3] = {sizeof(rl_s8_transpose_conv_state), channels * sizeof(int32_t), channels * sizeof(int32_t)};
    void *parts[3];
    rl_s8_transpose_conv_state *st = (rl_s8_transpose_conv_state *)rl_op_state_parts(plan, op, 3, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    float *filter_scales = (float *)rl_op_scratch(plan, op, channels * sizeof(float));
    if (!filter_scales) return RL_NO_MEMORY;
    if ((s = rl_s8_filter_scales(plan, op, filter, g.in_c, 0, filter_scales)) != RL_OK) return s;
    st->g = g;
    st->multiplier = (int32_t *)parts[1];
    st->shift = (int32_t *)parts[2];
    st->input_zero_point = rl_tensor_zero_point(input, 0);
    st->output_zero_point = rl_tensor_zero_point(output, 0);
    st->tap = rl_qs8_qc8w_deconv_tap__scalar;
    const double input_scale = rl_tensor_scale(input, 0), output_scale = rl_tensor_scale(output, 0);
    for (int32_t c = 0; c < g.in_c; ++c) {
        /* TFLite's PopulateConvolutionQuantizationParams: the ratio in double, from the float scales. */
        const double m = input_scale * (double)filter_scales[c] / output_scale;
        /* a shift of 31 would leave the single rounding no bit to round at; TFLite cannot represent it either */
        if (rl_quantize_multiplier(m, &st->multiplier[c], &st->shift[c]) || st->shift[c] > 30)
            return rl_fail(plan, RL_INVALID, "requantization scale %g (input * filter / output scale, channel %d) "
                           "cannot be represented", m, c);
    }
    if ((s = rl_quantized_activation_range(plan, op->params.conv.activation, output, &st->act_min, &st->act_max)) !=
        RL_OK)
        return s;
    rl_request_arena_scratch(op, (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * channels * sizeof(uint32_t));
    op->run = run_transpose_conv_int8;
    return RL_OK;
}
