/* transpose_conv.c — TRANSPOSE_CONV, float32: inputs (output_shape, filter [out_c, kh, kw, in_c], input,
 * optional bias). A convolution's input gradient is one (the converter writes it so), and decoders use it.
 * The padding is the convolution's that the output shape and the options describe, computed as TFLite's
 * ComputePaddingHeightWidth does (SAME: half the total before, the odd one after).
 *
 * The driver: one GEMM on the micro-kernels, every input pixel's in_c values times the filter read as
 * [out_c * kh * kw][in_c] (its memory as it is, packed at every invoke: the filter is a training step's
 * variable), gives each pixel's contribution to every (output channel, tap) in the arena's scratch; the
 * scatter of those columns into the output (col2im), the bias and the activation's clamp follow. Each output
 * element is a sum over (input pixel, tap) in that order; each contribution a sum over in_c, k ascending.
 * int8 lives in transpose_conv_int8.c and shares the geometry (rl_transpose_conv_geometry). */
#include <float.h>
#include <string.h>

#include "transpose_conv.h"

typedef struct {
    rl_window_geometry g; /* the convolution transposed: g.in_* is the output, g.out_* the input */
    size_t columns;       /* out_c * kh * kw */
    size_t packed_bytes;  /* the packed filter's, at the start of the arena scratch; the columns follow */
} rl_transpose_conv_state;

RL_STATIC_ASSERT(sizeof(rl_transpose_conv_state) <= 128, "rl_transpose_conv_state is a small struct");

typedef struct {
    const float *col; /* per input pixel, the GEMM's columns: oc rows of taps */
    float *output;
    int32_t taps, oc;
} rl_scatter_columns;

/* Adds one input pixel's columns of one tap into the output pixel it lands on. */
static void add_tap_columns(void *context, int64_t pixel, int32_t tap, int64_t target) {
    const rl_scatter_columns *s = (const rl_scatter_columns *)context;
    float *out = s->output + target * s->oc;
    const float *from = s->col + pixel * (int64_t)s->oc * s->taps + tap;
    for (int32_t o = 0; o < s->oc; ++o) out[o] += from[(int64_t)o * s->taps];
}

static rl_status run_transpose_conv(rl_plan *plan, rl_op *op) {
    const rl_transpose_conv_state *st = (const rl_transpose_conv_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const rl_f32_gemm_config *gemm = &plan->kernels->f32_gemm;
    const rl_tensor *bias = rl_input(plan, op, 3);
    const size_t rows = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w, depth = (size_t)g->out_c;
    float *output = (float *)rl_output(plan, op, 0)->data;
    const int64_t pixels = (int64_t)g->batch * g->in_h * g->in_w;
    if (pixels > 0 && g->in_c > 0) memset(output, 0, (size_t)pixels * (size_t)g->in_c * sizeof(float));
    /* An empty input, or no channels (no scratch then): nothing to multiply; the output is its bias. */
    if (op->arena_scratch && rows > 0 && depth > 0 && st->columns > 0) {
        float *packed = (float *)op->arena_scratch;
        float *col = (float *)((char *)op->arena_scratch + st->packed_bytes);
        rl_pack_f32_gemm(st->columns, 1, depth, gemm->nr, (const float *)rl_input(plan, op, 1)->data, NULL, packed);
        const float *input = (const float *)rl_input(plan, op, 2)->data;
        const rl_f32_minmax_params unclamped = {.min = -FLT_MAX, .max = FLT_MAX};
        for (size_t r = 0; r < rows; r += gemm->mr) {
            const size_t mr = rows - r < gemm->mr ? rows - r : gemm->mr;
            gemm->gemm(mr, st->columns, depth, input + r * depth, depth, packed, col + r * st->columns, st->columns,
                       &unclamped);
        }
        rl_scatter_columns scatter = {.col = col, .output = output, .taps = g->filter_h * g->filter_w, .oc = g->in_c};
        rl_transpose_conv_scatter(g, add_tap_columns, &scatter);
    }
    const float *b = bias ? (const float *)bias->data : NULL;
    for (int64_t p = 0; p < (g->in_c > 0 ? pixels : 0); ++p) {
        float *out = output + p * g->in_c;
        for (int32_t o = 0; o < g->in_c; ++o) {
            float v = out[o] + (b ? b[o] : 0.0f);
            v = v < g->act_min ? g->act_min : v;
            out[o] = v > g->act_max ? g->act_max : v;
        }
    }
    rl_transpose_conv_ran(plan, op);
    return RL_OK;
}

void rl_transpose_conv_ran(rl_plan *plan, rl_op *op) {
    if (!rl_known_data(rl_input(plan, op, 0))) op->stale = 1; /* read output_shape's values again next time */
}

/* The padding before the first row of a convolution over `size` with this window (in 64 bits: a hostile
 * stride near 2^31 overflows 32), and its output size. */
static int64_t padding_before(int32_t padding, int32_t size, int32_t filter, int32_t stride, int64_t *out) {
    *out = padding == 0 ? ((int64_t)size + stride - 1) / stride : ((int64_t)size - filter + stride) / stride;
    const int64_t total = (*out - 1) * stride + filter - size;
    return total > 0 ? total / 2 : 0;
}

/* The output's shape from output_shape and the convolution's geometry (transposed: g->in_* is the output),
 * for either dtype; checks the shapes agree. */
rl_status rl_transpose_conv_geometry(rl_plan *plan, rl_op *op, rl_window_geometry *g) {
    const rl_tensor *shape = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *input = rl_input(plan, op, 2);
    const rl_tensor *bias = rl_input(plan, op, 3);
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_conv_params *p = &op->params.conv;
    if (shape && (shape->dtype == RL_INT32 || shape->dtype == RL_INT64) && !rl_known_data(shape)) {
        /* output_shape computed in the graph (or fed): LiteRT sizes the output when the op runs. The op is
         * dynamic (dynamic_tensors.c): deferred when the plan is prepared, its output empty until then, and
         * prepared again just before it runs, when output_shape holds its values; rl_transpose_conv_ran
         * marks it stale after each run, as the values may change while output_shape's shape and memory
         * stay (all the dynamic machinery watches). */
        op->dynamic = 1;
        if (!plan->prepared) return rl_fail(plan, RL_UNSUPPORTED, "output_shape is read when the op runs");
    } else {
        rl_status s = rl_known_indices(plan, shape, "output_shape");
        if (s != RL_OK) return s;
    }
    if (rl_shape_count(&shape->shape) != 4) return rl_fail(plan, RL_INVALID, "output_shape must have 4 entries");
    if (input->shape.rank != 4 || filter->shape.rank != 4)
        return rl_fail(plan, RL_INVALID, "input and filter must be 4-D (have ranks %d and %d)", input->shape.rank,
                       filter->shape.rank);
    if (p->stride_h < 1 || p->stride_w < 1)
        return rl_fail(plan, RL_INVALID, "strides %d x %d must be positive", p->stride_h, p->stride_w);
    output->shape.rank = 4;
    for (int32_t d = 0; d < 4; ++d) {
        const int64_t v = rl_read_index(shape, d);
        if (v < 0 || v > INT32_MAX) return rl_fail(plan, RL_INVALID, "output_shape[%d] = %lld", d, (long long)v);
        output->shape.dims[d] = (int32_t)v;
    }
    *g = (rl_window_geometry){
        .batch = input->shape.dims[0], .in_h = output->shape.dims[1], .in_w = output->shape.dims[2],
        .in_c = output->shape.dims[3], .out_h = input->shape.dims[1], .out_w = input->shape.dims[2],
        .out_c = input->shape.dims[3], .filter_h = filter->shape.dims[1], .filter_w = filter->shape.dims[2],
        .stride_h = p->stride_h, .stride_w = p->stride_w, .dilation_h = 1, .dilation_w = 1, .depth_multiplier = 1,
    };
    if (output->shape.dims[0] != g->batch)
        return rl_fail(plan, RL_INVALID, "output_shape has batch %d, the input %d", output->shape.dims[0], g->batch);
    if (filter->shape.dims[0] != g->in_c || filter->shape.dims[3] != g->out_c)
        return rl_fail(plan, RL_INVALID, "filter is [%d, %d, %d, %d]; [%d, kh, kw, %d] expected (output and input "
                       "channels)", filter->shape.dims[0], filter->shape.dims[1], filter->shape.dims[2],
                       filter->shape.dims[3], g->in_c, g->out_c);
    if (bias && rl_shape_count(&bias->shape) != g->in_c)
        return rl_fail(plan, RL_INVALID, "bias has %lld elements, the output %d channels",
                       (long long)rl_shape_count(&bias->shape), g->in_c);
    if (p->padding != 0 && p->padding != 1) return rl_fail(plan, RL_INVALID, "padding %d is not SAME or VALID", p->padding);
    int64_t unused_h, unused_w;
    const int64_t pad_h = padding_before(p->padding, g->in_h, g->filter_h, g->stride_h, &unused_h);
    const int64_t pad_w = padding_before(p->padding, g->in_w, g->filter_w, g->stride_w, &unused_w);
    if (pad_h > INT32_MAX || pad_w > INT32_MAX)
        return rl_fail(plan, RL_INVALID, "strides %d x %d pad the output by more than 2^31", p->stride_h, p->stride_w);
    g->pad_h = (int32_t)pad_h;
    g->pad_w = (int32_t)pad_w;
    return RL_OK;
}

static rl_status prepare_transpose_conv_f32(rl_plan *plan, rl_op *op) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 3);
    rl_status s;
    if ((s = rl_expect_dtype(plan, filter, "filter", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, rl_output(plan, op, 0), "output", RL_FLOAT32)) != RL_OK) return s;
    if (bias && (s = rl_expect_dtype(plan, bias, "bias", RL_FLOAT32)) != RL_OK) return s;
    rl_window_geometry g;
    if ((s = rl_transpose_conv_geometry(plan, op, &g)) != RL_OK) return s;
    if ((s = rl_activation_range(plan, op->params.conv.activation, &g.act_min, &g.act_max)) != RL_OK) return s;
    rl_transpose_conv_state *st = (rl_transpose_conv_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->g = g;
    st->columns = (size_t)g.in_c * (size_t)g.filter_h * (size_t)g.filter_w;
    const size_t nr = plan->kernels->f32_gemm.nr;
    st->packed_bytes = (rl_f32_gemm_packed_size(st->columns, 1, (size_t)g.out_c, nr) + 63) / 64 * 64;
    const size_t rows = (size_t)g.batch * (size_t)g.out_h * (size_t)g.out_w;
    rl_request_arena_scratch(op, st->packed_bytes + rows * st->columns * sizeof(float));
    op->run = run_transpose_conv;
    return RL_OK;
}

rl_status rl_prepare_transpose_conv(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 3, 4);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 2);
    if (input->dtype == RL_INT8) return rl_prepare_transpose_conv_int8(plan, op);
    if (input->dtype == RL_INT16) return rl_prepare_transpose_conv_int16(plan, op); /* TFLite's 16x8 mode */
    if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    return prepare_transpose_conv_f32(plan, op);
}

rl_status rl_eval_transpose_conv(rl_plan *plan, rl_op *op) { return run_transpose_conv(plan, op); }
