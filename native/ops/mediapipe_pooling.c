/* mediapipe_pooling.c — MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D custom ops, as LiteRT's default
 * Interpreter runs them: only its XNNPACK delegate has kernels for them (the ops are not in LiteRT's resolver),
 * so XNNPACK's rules are the reference, and they differ from MediaPipe's own kernels:
 * - the index output holds a uint32 tap number t = fx * filter_h + fy (x-major) in the bits of the float32
 *   tensor the model declares, not MediaPipe's float fy * filter_w + fx + 0.1;
 * - the window must tile the image (stride = filter, as the delegate demands); SAME padding (TensorFlow's,
 *   the extra row or column after) repeats the edge pixel instead of skipping it, so a padded tap can win a
 *   tie only by coming first in the window;
 * - MaxUnpooling2D takes VALID padding only and writes an input_h * filter_h by input_w * filter_w image.
 * The options are TfLitePoolParams, decoded by the reader (tflite_reader.c) into params.pool. */
#include "conv_gemm.h"
#include "pool.h"

/* Windows of up to this many taps keep their pointers on the stack (MediaPipe's models pool 2x2). */
#define RL_ARGMAX_MAX_TAPS 256

typedef struct {
    rl_window_geometry g; /* argmax: in_* the image, out_* the pooled; unpool: in_* the pooled, out_* the image */
    const float *input;
    const uint32_t *indices; /* unpool's index input */
    float *output;
    uint32_t *argmax; /* argmax's index output */
} rl_mediapipe_pool_state;

RL_STATIC_ASSERT(sizeof(rl_mediapipe_pool_state) <= 256, "rl_mediapipe_pool_state is a small struct");

/* The input pixel of tap (fy, fx) of window (b, oy, ox), moved into the image where the window overhangs it. */
static size_t clamped_pixel(const rl_window_geometry *g, size_t b, int32_t oy, int32_t ox, int32_t fy, int32_t fx) {
    int32_t iy = oy * g->stride_h - g->pad_h + fy, ix = ox * g->stride_w - g->pad_w + fx;
    iy = iy < 0 ? 0 : (iy >= g->in_h ? g->in_h - 1 : iy);
    ix = ix < 0 ? 0 : (ix >= g->in_w ? g->in_w - 1 : ix);
    return (b * (size_t)g->in_h + (size_t)iy) * (size_t)g->in_w + (size_t)ix;
}

static void argmax_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_mediapipe_pool_state *st = (const rl_mediapipe_pool_state *)context;
    const rl_window_geometry *g = &st->g;
    const size_t c = (size_t)g->in_c;
    const float *taps[RL_ARGMAX_MAX_TAPS];
    for (size_t r = row; r < row + rows; ++r) {
        const size_t b = r / (size_t)g->out_h;
        const int32_t oy = (int32_t)(r % (size_t)g->out_h);
        for (int32_t ox = 0; ox < g->out_w; ++ox) {
            size_t n = 0;
            for (int32_t fx = 0; fx < g->filter_w; ++fx)
                for (int32_t fy = 0; fy < g->filter_h; ++fy) taps[n++] = st->input + clamped_pixel(g, b, oy, ox, fy, fx) * c;
            const size_t at = (r * (size_t)g->out_w + (size_t)ox) * c;
            f32_argmaxpool__scalar(c, n, taps, st->output + at, st->argmax + at);
        }
    }
}

static void unpool_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_mediapipe_pool_state *st = (const rl_mediapipe_pool_state *)context;
    const rl_window_geometry *g = &st->g;
    const size_t c = (size_t)g->in_c;
    float *taps[RL_ARGMAX_MAX_TAPS];
    for (size_t r = row; r < row + rows; ++r) {
        const size_t b = r / (size_t)g->in_h;
        const int32_t iy = (int32_t)(r % (size_t)g->in_h);
        for (int32_t ix = 0; ix < g->in_w; ++ix) {
            size_t n = 0;
            for (int32_t fx = 0; fx < g->filter_w; ++fx)
                for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                    const size_t oy = (size_t)iy * (size_t)g->filter_h + (size_t)fy;
                    const size_t ox = (size_t)ix * (size_t)g->filter_w + (size_t)fx;
                    taps[n++] = st->output + ((b * (size_t)g->out_h + oy) * (size_t)g->out_w + ox) * c;
                }
            const size_t at = (r * (size_t)g->in_w + (size_t)ix) * c;
            f32_unpool__scalar(c, n, st->input + at, st->indices + at, taps);
        }
    }
}

static rl_status run_argmax(rl_plan *plan, rl_op *op) {
    rl_mediapipe_pool_state *st = (rl_mediapipe_pool_state *)op->state;
    st->input = (const float *)rl_input(plan, op, 0)->data;
    st->output = (float *)rl_output(plan, op, 0)->data;
    st->argmax = (uint32_t *)rl_output(plan, op, 1)->data;
    if (!st->g.in_c) return RL_OK; /* no channels: empty tensors, which may have no memory to point into */
    const size_t rows = (size_t)st->g.batch * (size_t)st->g.out_h;
    rl_parallelize_rows(plan, argmax_rows, st, rows, rows * (size_t)st->g.out_w * (size_t)st->g.in_c *
                                                      (size_t)st->g.filter_h * (size_t)st->g.filter_w);
    return RL_OK;
}

static rl_status run_unpool(rl_plan *plan, rl_op *op) {
    rl_mediapipe_pool_state *st = (rl_mediapipe_pool_state *)op->state;
    st->input = (const float *)rl_input(plan, op, 0)->data;
    st->indices = (const uint32_t *)rl_input(plan, op, 1)->data;
    st->output = (float *)rl_output(plan, op, 0)->data;
    if (!st->g.in_c) return RL_OK; /* no channels: empty tensors, which may have no memory to point into */
    const size_t rows = (size_t)st->g.batch * (size_t)st->g.in_h;
    rl_parallelize_rows(plan, unpool_rows, st, rows, rows * (size_t)st->g.in_w * (size_t)st->g.in_c *
                                                     (size_t)st->g.filter_h * (size_t)st->g.filter_w);
    return RL_OK;
}

/* What both ops ask of their options and their (pooled or image) input. */
static rl_status check_pool_options(rl_plan *plan, const rl_pool_params *p, const rl_tensor *input) {
    if (p->filter_h < 1 || p->filter_w < 1 || p->filter_h > 4096 || p->filter_w > 4096)
        return rl_fail(plan, RL_INVALID, "filter %d x %d", p->filter_h, p->filter_w);
    if (p->stride_h != p->filter_h || p->stride_w != p->filter_w)
        return rl_fail(plan, RL_UNSUPPORTED, "strides %d x %d differ from the filter %d x %d (LiteRT's XNNPACK, "
                       "the only runtime with this op, pools non-overlapping windows only)", p->stride_h, p->stride_w,
                       p->filter_h, p->filter_w);
    if ((int64_t)p->filter_h * p->filter_w > RL_ARGMAX_MAX_TAPS)
        return rl_fail(plan, RL_UNSUPPORTED, "a %d x %d window: at most %d taps", p->filter_h, p->filter_w,
                       RL_ARGMAX_MAX_TAPS);
    if (p->activation != RL_ACT_NONE)
        return rl_fail(plan, RL_UNSUPPORTED, "fused activation %d (LiteRT's XNNPACK ignores it, MediaPipe's kernel "
                       "applies it)", p->activation);
    rl_status s = rl_expect_dtype(plan, input, "input", RL_FLOAT32);
    if (s != RL_OK) return s;
    if (input->shape.rank != 4) return rl_fail(plan, RL_INVALID, "input must be 4-D (has rank %d)", input->shape.rank);
    return RL_OK;
}

/* An index tensor: 4-byte elements (LiteRT's models declare float32 and hold uint32 bits; int32 is accepted). */
static rl_status expect_index_tensor(rl_plan *plan, const rl_tensor *t, const char *what) {
    if (t->dtype == RL_FLOAT32 || t->dtype == RL_INT32) return RL_OK;
    return rl_fail(plan, RL_INVALID, "%s is %s, not float32 (holding uint32 tap numbers)", what,
                   rl_dtype_name(t->dtype));
}

rl_status rl_prepare_argmax_pool(rl_plan *plan, rl_op *op) {
    if (op->n_outputs != 2) return rl_fail(plan, RL_INVALID, "%d outputs, not 2 (values, indices)", op->n_outputs);
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0), *indices = rl_output(plan, op, 1);
    const rl_pool_params *p = &op->params.pool;
    if ((s = check_pool_options(plan, p, input)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if ((s = expect_index_tensor(plan, indices, "the indices output")) != RL_OK) return s;
    rl_mediapipe_pool_state *st = (rl_mediapipe_pool_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    rl_window_geometry *g = &st->g;
    *g = (rl_window_geometry){.batch = input->shape.dims[0], .in_h = input->shape.dims[1],
                              .in_w = input->shape.dims[2], .in_c = input->shape.dims[3], .out_c = input->shape.dims[3],
                              .filter_h = p->filter_h, .filter_w = p->filter_w, .stride_h = p->stride_h,
                              .stride_w = p->stride_w, .dilation_h = 1, .dilation_w = 1, .depth_multiplier = 1};
    const int same = p->padding == RL_PADDING_SAME;
    if (g->in_h < (same ? 1 : g->filter_h) || g->in_w < (same ? 1 : g->filter_w))
        return rl_fail(plan, RL_INVALID, "the %d x %d input is smaller than the %d x %d window", g->in_h, g->in_w,
                       g->filter_h, g->filter_w);
    /* In int64: a height near INT32_MAX plus the stride would overflow. */
    const int64_t in_h = g->in_h, in_w = g->in_w;
    g->out_h = (int32_t)(same ? (in_h + g->stride_h - 1) / g->stride_h : (in_h - g->filter_h) / g->stride_h + 1);
    g->out_w = (int32_t)(same ? (in_w + g->stride_w - 1) / g->stride_w : (in_w - g->filter_w) / g->stride_w + 1);
    /* TensorFlow's SAME: the padding's smaller half goes before. */
    const int64_t pad_h = (int64_t)(g->out_h - 1) * g->stride_h + g->filter_h - in_h;
    const int64_t pad_w = (int64_t)(g->out_w - 1) * g->stride_w + g->filter_w - in_w;
    g->pad_h = same && pad_h > 0 ? (int32_t)(pad_h / 2) : 0;
    g->pad_w = same && pad_w > 0 ? (int32_t)(pad_w / 2) : 0;
    output->shape = (rl_shape){.rank = 4, .dims = {g->batch, g->out_h, g->out_w, g->in_c}};
    indices->shape = output->shape;
    op->run = run_argmax;
    return RL_OK;
}

rl_status rl_eval_argmax_pool(rl_plan *plan, rl_op *op) { return run_argmax(plan, op); }

rl_status rl_prepare_unpool(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *indices = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_pool_params *p = &op->params.pool;
    if ((s = check_pool_options(plan, p, input)) != RL_OK) return s;
    if (p->padding != RL_PADDING_VALID)
        return rl_fail(plan, RL_UNSUPPORTED, "SAME padding (LiteRT's XNNPACK, the only runtime with this op, "
                       "refuses it too)");
    if ((s = expect_index_tensor(plan, indices, "the indices input")) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if (!rl_shape_equal(&indices->shape, &input->shape))
        return rl_fail(plan, RL_INVALID, "the indices' shape differs from the input's");
    const int64_t h = (int64_t)input->shape.dims[1] * p->filter_h, w = (int64_t)input->shape.dims[2] * p->filter_w;
    if (h > INT32_MAX || w > INT32_MAX)
        return rl_fail(plan, RL_INVALID, "the output would be %lld x %lld", (long long)h, (long long)w);
    rl_mediapipe_pool_state *st = (rl_mediapipe_pool_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->g = (rl_window_geometry){.batch = input->shape.dims[0], .in_h = input->shape.dims[1],
                                 .in_w = input->shape.dims[2], .in_c = input->shape.dims[3],
                                 .out_h = (int32_t)h, .out_w = (int32_t)w, .out_c = input->shape.dims[3],
                                 .filter_h = p->filter_h, .filter_w = p->filter_w, .stride_h = p->stride_h,
                                 .stride_w = p->stride_w, .dilation_h = 1, .dilation_w = 1, .depth_multiplier = 1};
    output->shape = (rl_shape){.rank = 4, .dims = {st->g.batch, st->g.out_h, st->g.out_w, st->g.in_c}};
    op->run = run_unpool;
    return RL_OK;
}

rl_status rl_eval_unpool(rl_plan *plan, rl_op *op) { return run_unpool(plan, op); }
