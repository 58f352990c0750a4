/* dwconv_hybrid.c — hybrid DEPTHWISE_CONV_2D (float32 activations, int8 weights, depth multiplier 1, constant
 * weights and bias) on the qd8 depthwise micro-kernels (qd8_dwconv.h), with TFLite's EvalHybridPerChannel
 * arithmetic as the reference (qd8_f32_qc8w_dwconv2d_ref) has it: each image quantized as
 * f32_qs8_asymmetric_quantize_tflite_ref does, padding taps pointed at a buffer of that image's zero point
 * (adding nothing, as the reference skips them). The weights are read in place (already [taps][channels]);
 * the scales are prepare's.
 *
 * Each image's range is found in parts across the threads (conv_hybrid_quantize.h). Then, where the input
 * rows that a filter spans fit on the stack (RING_BYTES), each tile of output pixels rounds the input rows it
 * reads into a ring of those rows just before it reads them: no pass over the image in memory, no join between
 * rounding and the products, and no scratch, so the op can head a band segment (bands.h) whose bands carry
 * its pixels through the pointwise ops after it. Rows two tiles share are rounded by both (the same bits).
 * Otherwise the whole image is rounded into arena scratch first. Each output value is one kernel call's on the
 * same int8 values, so the result does not depend on the thread count. */
#include <string.h>

#include "conv_gemm.h"
#include "conv_hybrid_gemm.h"
#include "conv_hybrid_quantize.h"
#include "qd8_dwconv.h"

enum { MAX_TAPS = 64 }; /* larger filters stay on the reference */
/* The ring's rows and the zero buffer, on the stack of the thread that runs a tile. */
enum { RING_BYTES = 32768, MAX_RING_ROWS = 64 };
/* A multiply-add of this kernel (TFLite's arithmetic) costs about as much as this many of the float and int8
 * depthwise kernels', for which rl_pool_for's threshold is set (mobilenet_v2's hybrid depthwise layers took
 * 4.6 times the float ones' time): a 12x12x48 layer is 18 us, worth both threads. */
enum { WORK_PER_MAC = 4 };

typedef struct {
    rl_window_geometry g;
    size_t taps, image_bytes, row_bytes, zero_offset, quantizer_offset;
    size_t ring_rows; /* input rows a filter spans, (filter_h - 1) * dilation_h + 1; 0: the arena path */
    rl_qd8_dwconv_fn kernel;
    rl_f32_quantize_values_fn values; /* TFLite's rounding */
    rl_image_quantizer quantizer;     /* TFLite's quantization */
    rl_qd8_dwconv_params params;      /* zero point and image scale set per image */
    void *ranges;                     /* the ring path's quantizer scratch, in the op's state */
    /* Set at each invoke. */
    const float *input;
    const int8_t *quantized, *filter;
    const rl_f32_qs8_quantization *images;
    float *output;
} rl_qd8_dwconv_state;

static size_t round_up(size_t x, size_t multiple) { return (x + multiple - 1) / multiple * multiple; }

/* Output pixel (row, ox) of the batch's rows (b * out_h + oy), its taps read from `image` rows with `zero`
 * for the padding, where image row iy is at rows + slot(iy) * row_bytes. */
static void dwconv_pixel(const rl_qd8_dwconv_state *st, const rl_qd8_dwconv_params *params, size_t row, int32_t ox,
                         const int8_t *rows, size_t ring_rows, const int8_t *zero) {
    const rl_window_geometry *g = &st->g;
    const size_t channels = (size_t)g->out_c, b = row / (size_t)g->out_h;
    const int32_t oy = (int32_t)(row % (size_t)g->out_h);
    const int8_t *taps[MAX_TAPS];
    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
        const int32_t iy = oy * g->stride_h - g->pad_h + fy * g->dilation_h;
        const int8_t *in_row = NULL;
        if (iy >= 0 && iy < g->in_h)
            in_row = ring_rows ? rows + (size_t)iy % ring_rows * st->row_bytes
                               : rows + (b * (size_t)g->in_h + (size_t)iy) * st->row_bytes;
        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
            const int32_t ix = ox * g->stride_w - g->pad_w + fx * g->dilation_w;
            taps[fy * g->filter_w + fx] = in_row && ix >= 0 && ix < g->in_w ? in_row + (size_t)ix * channels : zero;
        }
    }
    st->kernel(channels, st->taps, taps, st->filter, params,
               st->output + (row * (size_t)g->out_w + (size_t)ox) * channels);
}

static rl_qd8_dwconv_params image_params(const rl_qd8_dwconv_state *st, size_t b) {
    rl_qd8_dwconv_params params = st->params;
    params.zero_point = st->images[b].zero_point;
    params.image_scale = st->images[b].scale;
    return params;
}

/* Output pixels first .. first + count - 1 (of batch * out_h * out_w), the input rows rounded into a ring. */
static void dwconv_ring_pixels(const rl_qd8_dwconv_state *st, size_t first, size_t count) {
    const rl_window_geometry *g = &st->g;
    int8_t ring[RING_BYTES];
    int8_t *zero = ring + st->ring_rows * st->row_bytes;
    size_t held[MAX_RING_ROWS]; /* the image row (b * in_h + iy) each slot holds, + 1; 0: none */
    memset(held, 0, sizeof held);
    size_t image = (size_t)-1;
    rl_qd8_dwconv_params params = st->params;
    for (size_t p = first, end = first + count; p < end;) {
        const size_t row = p / (size_t)g->out_w, b = row / (size_t)g->out_h;
        const int32_t oy = (int32_t)(row % (size_t)g->out_h), ox = (int32_t)(p % (size_t)g->out_w);
        const size_t run = (size_t)g->out_w - (size_t)ox < end - p ? (size_t)g->out_w - (size_t)ox : end - p;
        if (b != image) {
            image = b;
            params = image_params(st, b);
            memset(zero, (int)(int8_t)params.zero_point, (size_t)g->in_c);
        }
        /* The rows this output row reads are ring_rows consecutive ones at most: distinct slots. */
        for (int32_t fy = 0; fy < g->filter_h; ++fy) {
            const int32_t iy = oy * g->stride_h - g->pad_h + fy * g->dilation_h;
            if (iy < 0 || iy >= g->in_h) continue;
            const size_t key = b * (size_t)g->in_h + (size_t)iy, slot = (size_t)iy % st->ring_rows;
            if (held[slot] == key + 1) continue;
            st->values((int64_t)st->row_bytes, st->input + key * st->row_bytes, ring + slot * st->row_bytes,
                       &st->images[b]);
            held[slot] = key + 1;
        }
        for (size_t k = 0; k < run; ++k) dwconv_pixel(st, &params, row, ox + (int32_t)k, ring, st->ring_rows, zero);
        p += run;
    }
}

/* Output rows first .. first + count - 1 (of batch * out_h). */
static void dwconv_rows(void *context, size_t first, size_t unused, size_t count, size_t one) {
    (void)unused, (void)one;
    const rl_qd8_dwconv_state *st = (const rl_qd8_dwconv_state *)context;
    const rl_window_geometry *g = &st->g;
    if (st->ring_rows) {
        dwconv_ring_pixels(st, first * (size_t)g->out_w, count * (size_t)g->out_w);
        return;
    }
    for (size_t row = first; row < first + count; ++row) {
        const size_t b = row / (size_t)g->out_h;
        const rl_qd8_dwconv_params params = image_params(st, b);
        const int8_t *zero = st->quantized + st->zero_offset + b * (size_t)g->in_c;
        for (int32_t ox = 0; ox < g->out_w; ++ox) dwconv_pixel(st, &params, row, ox, st->quantized, 0, zero);
    }
}

/* The tensors' addresses and each image's quantization (its range found across the threads); the arena path
 * also rounds the images into scratch. */
static void begin_dwconv(rl_plan *plan, rl_op *op) {
    rl_qd8_dwconv_state *st = (rl_qd8_dwconv_state *)op->state;
    const rl_tensor *bias = rl_input(plan, op, 2);
    st->input = (const float *)rl_input(plan, op, 0)->data;
    st->filter = (const int8_t *)rl_input(plan, op, 1)->data;
    st->params.bias = bias ? (const float *)bias->data : NULL;
    st->output = (float *)rl_output(plan, op, 0)->data;
    if (st->ring_rows) {
        st->images = rl_image_quantizations(plan, &st->quantizer, st->input, st->ranges, NULL);
        return;
    }
    int8_t *scratch = (int8_t *)op->arena_scratch;
    rl_quantize_images(plan, &st->quantizer, st->input, scratch, scratch + st->quantizer_offset, NULL);
    st->images = st->quantizer.quantizations;
    for (size_t b = 0; b < (size_t)st->g.batch; ++b)
        memset(scratch + st->zero_offset + b * (size_t)st->g.in_c, (int)(int8_t)st->images[b].zero_point,
               (size_t)st->g.in_c);
    st->quantized = scratch;
}

static rl_status run_qd8_dwconv(rl_plan *plan, rl_op *op) {
    begin_dwconv(plan, op);
    const rl_qd8_dwconv_state *st = (const rl_qd8_dwconv_state *)op->state;
    const size_t rows = (size_t)st->g.batch * (size_t)st->g.out_h;
    rl_parallelize_rows(plan, dwconv_rows, op->state, rows,
                        rows * (size_t)st->g.out_w * st->taps * (size_t)st->g.out_c * WORK_PER_MAC);
    return RL_OK;
}

static void run_dwconv_band(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    dwconv_ring_pixels((const rl_qd8_dwconv_state *)op->state, first, count);
}

rl_status rl_use_qd8_dwconv(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const size_t taps = (size_t)g->filter_h * (size_t)g->filter_w;
    if (!rl_known_data(filter) || (bias && !rl_known_data(bias)) || !op->scratch || g->depth_multiplier != 1 ||
        taps == 0 || taps > MAX_TAPS || g->out_c <= 0 || g->batch <= 0 || g->out_h <= 0 || g->out_w <= 0)
        return RL_OK;
    rl_qd8_dwconv_state proto;
    memset(&proto, 0, sizeof proto);
    proto.g = *g;
    proto.taps = taps;
    proto.row_bytes = (size_t)g->in_w * (size_t)g->in_c;
    proto.image_bytes = (size_t)g->in_h * proto.row_bytes;
    const size_t ring_rows = (size_t)(g->filter_h - 1) * (size_t)g->dilation_h + 1;
    if (ring_rows <= MAX_RING_ROWS && ring_rows * proto.row_bytes + (size_t)g->in_c <= RING_BYTES)
        proto.ring_rows = ring_rows;
    const size_t quantizer_bytes = rl_image_quantizer_init(&proto.quantizer, &plan->kernels->qd8_quantize, 1,
                                                           (size_t)g->batch, proto.image_bytes);
    const size_t sizes[2] = {sizeof(rl_qd8_dwconv_state), proto.ring_rows ? quantizer_bytes : 0};
    void *parts[2];
    rl_qd8_dwconv_state *st = (rl_qd8_dwconv_state *)rl_op_state_parts(plan, op, 2, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    *st = proto;
    st->ranges = parts[1];
    st->kernel = plan->kernels->qd8_dwconv;
    st->values = plan->kernels->qd8_quantize.tflite_values;
    st->params = (rl_qd8_dwconv_params){.scale_first_end = (size_t)(g->out_c - g->out_c % 4),
                                        .scales = (const float *)op->scratch,
                                        .clamp = {.min = g->act_min, .max = g->act_max}};
    op->run = run_qd8_dwconv;
    if (st->ring_rows) { /* no scratch: bands of pixels may follow it through the ops after it */
        op->band_rows = (size_t)g->batch * (size_t)g->out_h;
        op->band_row_pixels = (size_t)g->out_w;
        op->begin_rows = begin_dwconv;
        op->run_rows = run_dwconv_band;
        return RL_OK;
    }
    st->zero_offset = round_up((size_t)g->batch * st->image_bytes, 64);
    st->quantizer_offset = round_up(st->zero_offset + (size_t)g->batch * (size_t)g->in_c, 64);
    rl_request_arena_scratch(op, st->quantizer_offset + quantizer_bytes);
    return RL_OK;
}
