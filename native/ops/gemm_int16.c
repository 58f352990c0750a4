/* gemm_int16.c — CONV_2D and FULLY_CONNECTED in TFLite's 16x8 mode (int16 input and output with zero point 0,
 * int8 weights with one scale per output channel or one, int64 or int32 bias or none) on the 16x8 IGEMM
 * kernels (qs16_gemm.h): weights, biases and per-channel multipliers packed once at prepare, an indirection
 * buffer of input rows built once the arena is placed, output rows and column panels split across the plan's
 * threads. window.c and matmul.c compute the shapes and send int16 inputs here. Which requantization each
 * case takes (LiteRT runs its builtin kernels for 16x8: CONV_2D's reference kernel, FULLY_CONNECTED's
 * reference kernel with an int64 bias and ruy's otherwise) is in qs16_gemm.h. */
#include <string.h>

#include "conv_gemm.h"
#include "qs16_gemm.h"
#include "quant.h"

typedef struct {
    size_t m, n, kc, ks, mr, nr, panel_bytes;
    int32_t conv; /* the indirection buffer walks a convolution's window, else one row per GEMM row */
    rl_window_geometry g;
    rl_qs16_gemm_config kernel;
    rl_qs16_requantization_params params;
    void *packed;
    const int16_t **indirection; /* ceil(m / mr) blocks of ks * mr pointers */
    int16_t *zero;               /* kc + 1 zeros: what padding taps read */
    int16_t *c;                  /* the output, set at each run */
} rl_s16_gemm_state;

RL_STATIC_ASSERT(sizeof(rl_s16_gemm_state) <= 512, "rl_s16_gemm_state stays a small header before its buffers");

static void gemm_tile(void *context, size_t i, size_t j, size_t rows, size_t columns) {
    const rl_s16_gemm_state *st = (const rl_s16_gemm_state *)context;
    const char *w = (const char *)st->packed + (j / st->nr) * st->panel_bytes;
    for (size_t r = i; r < i + rows; r += st->mr) {
        const size_t mr = i + rows - r < st->mr ? i + rows - r : st->mr;
        st->kernel.igemm(mr, columns, st->kc, st->ks, st->indirection + r * st->ks, w, st->c + r * st->n + j, st->n,
                         &st->params);
    }
}

static rl_status run_gemm_int16(rl_plan *plan, rl_op *op) {
    rl_s16_gemm_state *st = (rl_s16_gemm_state *)op->state;
    st->c = (int16_t *)rl_output(plan, op, 0)->data;
    rl_parallelize_gemm(plan, gemm_tile, st, st->m, st->n, st->mr, st->nr, st->m * st->n * st->kc * st->ks);
    return RL_OK;
}

/* Pointers per block of mr rows, tap-major; rows past m repeat the last one, so every slot is valid. */
static rl_status setup_indirection(rl_plan *plan, rl_op *op) {
    rl_s16_gemm_state *st = (rl_s16_gemm_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const int16_t *input = (const int16_t *)rl_input(plan, op, 0)->data;
    const size_t blocks = (st->m + st->mr - 1) / st->mr;
    for (size_t block = 0; block < blocks; ++block)
        for (size_t i = 0; i < st->mr; ++i) {
            size_t row = block * st->mr + i;
            if (row >= st->m) row = st->m - 1;
            const int16_t **slot = st->indirection + block * st->ks * st->mr + i;
            if (!st->conv) {
                slot[0] = input + row * st->kc;
                continue;
            }
            const int32_t ox = (int32_t)(row % (size_t)g->out_w);
            const int32_t oy = (int32_t)(row / (size_t)g->out_w % (size_t)g->out_h);
            const size_t b = row / ((size_t)g->out_w * (size_t)g->out_h);
            for (int32_t fy = 0; fy < g->filter_h; ++fy)
                for (int32_t fx = 0; fx < g->filter_w; ++fx)
                    slot[(size_t)(fy * g->filter_w + fx) * st->mr] = (const int16_t *)rl_window_tap(
                        g, (const char *)input, st->kc * sizeof(int16_t), st->zero, b, oy, ox, fy, fx);
        }
    return RL_OK;
}

static rl_status expect_zero_point_0(rl_plan *plan, const rl_tensor *t, const char *what) {
    rl_status s = rl_expect_per_tensor_quantization(plan, t, what);
    if (s == RL_OK && rl_tensor_zero_point(t, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "%s has zero point %d; TFLite's 16x8 mode needs 0", what,
                       rl_tensor_zero_point(t, 0));
    return s;
}

rl_status rl_s16_check_16x8(rl_plan *plan, const char *op_name, const rl_tensor *input, const rl_tensor *filter,
                            const rl_tensor *bias, const rl_tensor *output, int allow_int32_bias) {
    rl_status s = rl_expect_dtype(plan, filter, "int16 op's filter", RL_INT8);
    if (s == RL_OK) s = rl_expect_dtype(plan, output, "int16 op's output", RL_INT16);
    if (s == RL_OK) s = expect_zero_point_0(plan, input, "int16 input");
    if (s == RL_OK) s = expect_zero_point_0(plan, output, "int16 output");
    if (s != RL_OK) return s;
    if (bias && bias->dtype != RL_INT64 && !(allow_int32_bias && bias->dtype == RL_INT32))
        return rl_fail(plan, RL_UNSUPPORTED, "16x8 %s has a %s bias; %s", op_name, rl_dtype_name(bias->dtype),
                       allow_int32_bias ? "int64 or int32 expected"
                                        : "int64 expected (the converter writes int64; with int32, LiteRT 2.3's "
                                          "outputs saturate)");
    if (!rl_known_data(filter) || (bias && !rl_known_data(bias)))
        return rl_fail(plan, RL_UNSUPPORTED, "16x8 %s needs a constant filter and bias", op_name);
    return RL_OK;
}

rl_status rl_s16_channel_multipliers(rl_plan *plan, rl_op *op, const rl_tensor *input, const rl_tensor *filter,
                                     const rl_tensor *output, int32_t channels, int32_t axis, int float_product,
                                     int32_t max_shift, const rl_qs16_channel **channels_out) {
    /* the op's scratch: the channels, then their filter scales */
    const size_t count = (size_t)(channels > 0 ? channels : 1);
    rl_qs16_channel *factors =
        (rl_qs16_channel *)rl_op_scratch(plan, op, count * (sizeof(rl_qs16_channel) + sizeof(float)));
    if (!factors) return RL_NO_MEMORY;
    float *scales = (float *)(factors + count);
    rl_status s = rl_s8_filter_scales(plan, op, filter, channels, axis, scales);
    if (s != RL_OK) return s;
    const float input_scale = rl_tensor_scale(input, 0), output_scale = rl_tensor_scale(output, 0);
    for (int32_t c = 0; c < channels; ++c) {
        /* TFLite takes the ratio in double, except ruy's per-tensor multiplier (float_product), whose scales
         * are multiplied in float first (GetQuantizedConvolutionMultipler). */
        const double real = float_product ? (double)(input_scale * scales[c]) / (double)output_scale
                                          : (double)input_scale * (double)scales[c] / (double)output_scale;
        factors[c].scale = real;
        if (rl_quantize_multiplier(real, &factors[c].multiplier, &factors[c].shift) || factors[c].shift > max_shift)
            return rl_fail(plan, RL_UNSUPPORTED, "requantization scale %g (input * filter / output scale, channel %d) "
                           "is 2^%d or more, past what TFLite's 16x8 arithmetic defines", real, c, max_shift);
    }
    *channels_out = factors;
    return RL_OK;
}

/* Computes the multipliers, allocates the state (packed weights, indirection, zeros) and packs the filter
 * ([n][ks][kc]). */
static rl_status build_state(rl_plan *plan, rl_op *op, rl_s16_gemm_state *proto, int32_t rounding, int32_t activation,
                             int float_product) {
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_tensor *output = rl_output(plan, op, 0);
    const rl_qs16_channel *channels;
    rl_status s = rl_s16_channel_multipliers(plan, op, input, filter, output, (int32_t)proto->n, 0, float_product,
                                             rl_qs16_max_shift(rounding), &channels);
    if (s != RL_OK) return s;
    proto->params.rounding = rounding;
    if ((s = rl_quantized_activation_range(plan, activation, output, &proto->params.act_min, &proto->params.act_max)) !=
        RL_OK)
        return s;
    proto->kernel = plan->kernels->qs16_gemm;
    proto->mr = proto->kernel.mr;
    proto->nr = proto->kernel.nr;
    proto->panel_bytes = rl_qs16_qc8w_packed_size(proto->nr, proto->ks, proto->kc, proto->nr);
    const size_t packed_bytes = rl_qs16_qc8w_packed_size(proto->n, proto->ks, proto->kc, proto->nr);
    const size_t blocks = (proto->m + proto->mr - 1) / proto->mr;
    const size_t sizes[4] = {sizeof(rl_s16_gemm_state), packed_bytes, blocks * proto->ks * proto->mr * sizeof(void *),
                             (proto->kc + 1) * sizeof(int16_t)};
    void *parts[4];
    rl_s16_gemm_state *st = (rl_s16_gemm_state *)rl_op_state_parts(plan, op, 4, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    *st = *proto;
    st->packed = parts[1];
    st->indirection = (const int16_t **)parts[2];
    st->zero = (int16_t *)parts[3];
    memset(st->zero, 0, sizes[3]);
    rl_pack_qs16_qc8w(st->n, st->ks, st->kc, st->nr, (const int8_t *)rl_known_data(filter),
                      bias ? rl_known_data(bias) : NULL, bias && bias->dtype == RL_INT32, channels, st->packed);
    op->packed_weight_bytes = packed_bytes;
    op->packed_inputs = RL_PACKED_FILTER_AND_BIAS;
    op->run = run_gemm_int16;
    op->setup = setup_indirection;
    return RL_OK;
}

rl_status rl_prepare_conv2d_int16(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    rl_status s = rl_s16_check_16x8(plan, "CONV_2D", input, filter, bias, rl_output(plan, op, 0), 0);
    if (s != RL_OK) return s;
    rl_s16_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    proto.conv = 1;
    proto.g = *g;
    proto.m = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
    proto.n = (size_t)g->out_c;
    proto.kc = (size_t)g->in_c;
    proto.ks = (size_t)g->filter_h * (size_t)g->filter_w;
    if (proto.m == 0 || proto.n == 0 || proto.kc == 0)
        return rl_fail(plan, RL_UNSUPPORTED, "16x8 CONV_2D of an empty tensor");
    return build_state(plan, op, &proto, RL_QS16_REDUCED64, op->params.conv.activation, 0);
}

rl_status rl_prepare_fully_connected_int16(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0), *weights = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    rl_status s = rl_s16_check_16x8(plan, "FULLY_CONNECTED", input, weights, bias, rl_output(plan, op, 0), 1);
    if (s != RL_OK) return s;
    rl_s16_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    proto.m = (size_t)op->prep.outer;
    proto.n = (size_t)weights->shape.dims[0];
    proto.kc = (size_t)weights->shape.dims[1];
    proto.ks = 1;
    if (proto.m == 0 || proto.n == 0 || proto.kc == 0)
        return rl_fail(plan, RL_UNSUPPORTED, "16x8 FULLY_CONNECTED of an empty tensor");
    /* LiteRT 2.3 refuses a quantized_bias_type other than int32 or int64, or one the bias does not have. */
    const int32_t bias_type = op->params.fully_connected.quantized_bias_type;
    if (bias_type != RL_FLOAT32 && bias_type != RL_INT32 && bias_type != RL_INT64)
        return rl_fail(plan, RL_UNSUPPORTED, "16x8 FULLY_CONNECTED's quantized_bias_type is %s; int32 or int64 "
                       "expected", rl_dtype_name(bias_type));
    if (bias && bias_type != RL_FLOAT32 && (bias->dtype == RL_INT64) != (bias_type == RL_INT64))
        return rl_fail(plan, RL_UNSUPPORTED, "16x8 FULLY_CONNECTED has an %s bias but quantized_bias_type %s",
                       rl_dtype_name(bias->dtype), rl_dtype_name(bias_type));
    /* LiteRT: an int64 bias takes TFLite's reference kernel, an int32 bias or none ruy (qs16_gemm.h), except
     * that no bias with quantized_bias_type int64 (a converter's bias-less layer) is the reference kernel's. */
    const int reference = bias ? bias->dtype == RL_INT64 : bias_type == RL_INT64;
    return build_state(plan, op, &proto, reference ? RL_QS16_DOUBLE64 : RL_QS16_DOUBLE32,
                       op->params.fully_connected.activation, !reference && weights->q_count == 1);
}
