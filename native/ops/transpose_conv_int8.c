/* transpose_conv_int8.c — TRANSPOSE_CONV, int8: int8 input and output (one scale each), int8 filter
 * [out_c, kh, kw, in_c] with one scale per output channel (or one), optional int32 bias.
 *
 * Every (input pixel, tap) adds its in_c products into an int32 sum per output element (exact integers, so
 * the order is free) and the bias is added; the requantization of those sums follows whichever kernel
 * LiteRT 2.3's default Interpreter runs, probed against BUILTIN_WITHOUT_DEFAULT_DELEGATES:
 * - XNNPACK takes the op when the filter, the bias and output_shape are constants of the file and the padding
 *   is VALID or the filter is at least the stride on both axes (SAME with a smaller filter would need a
 *   negative padding): fp32 requantization, sum * (input_scale * filter_scale / output_scale in float),
 *   rounded to nearest even, clamped with XNNPACK's activation bounds (rl_s8_requantization_of).
 * - Otherwise TFLite's optimized builtin kernel (optimized_ops::Quantize): channels in whole blocks of 8 go
 *   through NEON's vqrdmulh and vrshl (both round halves up; on x86 through NEON_2_SSE), the channels left
 *   over through gemmlowp's MultiplyByQuantizedMultiplier (halves away from zero), with TFLite's multiplier
 *   and shift of the scale ratio in double and TFLite's activation range. */
#include <string.h>

#include "qs8_qc8w_deconv.h"
#include "qs8_requantize__scalar.h"
#include "quant.h"
#include "transpose_conv.h"

typedef struct {
    rl_window_geometry g; /* the convolution transposed: g.in_* is the output, g.out_* the input */
    int32_t input_zero_point, output_zero_point, act_min, act_max;
    int32_t xnnpack; /* 1: LiteRT hands the op to XNNPACK (fp32 requantization); 0: TFLite's builtin kernel */
    rl_qs8_qc8w_deconv_tap_fn tap;
    int32_t *multiplier, *shift; /* per output channel (builtin), parts of the state */
    float *scale;                /* per output channel (XNNPACK), a part of the state */
} rl_s8_transpose_conv_state;

RL_STATIC_ASSERT(sizeof(rl_s8_transpose_conv_state) <= 192, "rl_s8_transpose_conv_state is a small struct");

/* NEON's vshlq_s32, vqrdmulhq_s32 and vrshlq_s32 on one lane, as TFLite's optimized Quantize applies them:
 * the high multiply and the right shift each round halves toward +infinity. */
static int32_t neon_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift) {
    const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const int64_t a = (int32_t)((uint32_t)x << left);
    int64_t v = (2 * a * multiplier + (INT64_C(1) << 31)) >> 32;
    if (v > INT32_MAX) v = INT32_MAX; /* vqrdmulh saturates */
    return (int32_t)(right ? (v + (INT64_C(1) << (right - 1))) >> right : v);
}

/* The requantization of one output pixel's int32 sums (bias added) into int8. */
static void requantize_pixel(const rl_s8_transpose_conv_state *st, const uint32_t *sums, int8_t *out) {
    const size_t oc = (size_t)st->g.in_c;
    if (st->xnnpack) {
        const rl_qs8_requantization_params params = {
            .min_less_zero_point = (float)(st->act_min - st->output_zero_point),
            .max_less_zero_point = (float)(st->act_max - st->output_zero_point),
            .output_zero_point = st->output_zero_point,
        };
        for (size_t o = 0; o < oc; ++o) out[o] = rl_qs8_requantize_scalar(sums[o], st->scale[o], &params);
        return;
    }
    const size_t blocked = oc / 8 * 8; /* the channels optimized_ops::Quantize runs through NEON */
    for (size_t o = 0; o < oc; ++o) {
        const int32_t sum = (int32_t)sums[o];
        const int32_t v = o < blocked ? neon_multiply_by_quantized_multiplier(sum, st->multiplier[o], st->shift[o])
                                      : rl_mul_by_quantized_multiplier(sum, st->multiplier[o], st->shift[o]);
        out[o] = (int8_t)rl_clamp_i32(v + st->output_zero_point, st->act_min, st->act_max);
    }
}

typedef struct {
    const rl_s8_transpose_conv_state *st;
    const int8_t *input, *filter;
    uint32_t *acc;
    size_t oc, ic, filter_stride;
} rl_scatter_taps;

/* Adds one input pixel through one filter tap into the int32 sums of the output pixel it lands on. */
static void add_tap(void *context, int64_t pixel, int32_t tap, int64_t target) {
    const rl_scatter_taps *s = (const rl_scatter_taps *)context;
    s->st->tap(s->oc, s->ic, s->input + pixel * (int64_t)s->ic, s->st->input_zero_point,
               s->filter + (size_t)tap * s->ic, s->filter_stride, s->acc + target * (int64_t)s->oc);
}

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
    if (pixels <= 0 || oc == 0) { /* an empty output (and no scratch) */
        rl_transpose_conv_ran(plan, op);
        return RL_OK;
    }
    memset(acc, 0, (size_t)pixels * oc * sizeof *acc);
    rl_scatter_taps scatter = {.st = st, .input = input, .filter = filter, .acc = acc, .oc = oc, .ic = ic,
                               .filter_stride = filter_stride};
    rl_transpose_conv_scatter(g, add_tap, &scatter);
    for (int64_t p = 0; p < pixels; ++p) {
        uint32_t *sums = acc + (size_t)p * oc;
        if (bias)
            for (size_t o = 0; o < oc; ++o) sums[o] += (uint32_t)bias[o];
        requantize_pixel(st, sums, output + (size_t)p * oc);
    }
    rl_transpose_conv_ran(plan, op);
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
    const size_t sizes[4] = {sizeof(rl_s8_transpose_conv_state), channels * sizeof(int32_t), channels * sizeof(int32_t),
                             channels * sizeof(float)};
    void *parts[4];
    rl_s8_transpose_conv_state *st = (rl_s8_transpose_conv_state *)rl_op_state_parts(plan, op, 4, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    float *filter_scales = (float *)rl_op_scratch(plan, op, channels * sizeof(float));
    if (!filter_scales) return RL_NO_MEMORY;
    if ((s = rl_s8_filter_scales(plan, op, filter, g.in_c, 0, filter_scales)) != RL_OK) return s;
    st->g = g;
    st->multiplier = (int32_t *)parts[1];
    st->shift = (int32_t *)parts[2];
    st->scale = (float *)parts[3];
    const rl_tensor *shape = rl_input(plan, op, 0);
    st->xnnpack = filter->file_data && shape->file_data && (!bias || bias->file_data) &&
                  (op->params.conv.padding == 1 || (g.filter_h >= g.stride_h && g.filter_w >= g.stride_w));
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
    if (st->xnnpack) {
        rl_quant_params q;
        if ((s = rl_s8_requantization_of(plan, input, output, op->params.conv.activation, filter_scales, g.in_c,
                                         st->scale, &q)) != RL_OK)
            return s;
        st->act_min = q.act_min;
        st->act_max = q.act_max;
    } else if ((s = rl_quantized_activation_range(plan, op->params.conv.activation, output, &st->act_min,
                                                    &st->act_max)) != RL_OK) {
        return s;
    }
    rl_request_arena_scratch(op, (size_t)g.batch * (size_t)g.in_h * (size_t)g.in_w * channels * sizeof(uint32_t));
    op->run = run_transpose_conv_int8;
    return RL_OK;
}
