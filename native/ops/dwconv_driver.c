/* dwconv_driver.c — DEPTHWISE_CONV_2D (depth multiplier 1) on the depthwise micro-kernels: weights packed
 * in channel tiles at prepare (float32 weights that are not constants, a training step's, at every invoke; int8
 * weights are read where the model holds them, only their biases and scales packed: dwconv.h),
 * an indirection buffer built once the arena is placed, output rows split across the plan's threads. See
 * conv_gemm.h.
 *
 * The indirection buffer lists, per output row, input columns of filter_h pointers each, and a pixel's taps
 * are its filter_w consecutive columns (the packed x-major tap order, dwconv.h). Where the filter overlaps
 * itself along the row (stride_w < filter_w, no dilation) neighbouring pixels share columns, as in XNNPACK:
 * pixel p starts stride_w columns after pixel p - 1, and a 3x3 stride-1 row holds (out_w + 2) * 3 pointers
 * instead of out_w * 9 (MobileNet's depthwise layers built a third of the pointers, a third of the memory
 * their indirection touched at prepare). Rows shared that way are one kernel call each; otherwise every
 * pixel has its own taps and consecutive rows run in one call. */
#include <string.h>

#include "conv_gemm.h"

typedef struct {
    int32_t int8, pack_each_run;
    size_t channels, taps, rows, row_pixels; /* rows = batch * out_h, row_pixels = out_w */
    size_t step;        /* indirection entries from one pixel's taps to the next pixel's: stride_w * filter_h
                         * where pixels share columns, else taps */
    size_t row_entries; /* indirection entries per output row */
    size_t element_bytes;
    rl_f32_dwconv_config f32;
    rl_qs8_dwconv_config qs8;
    rl_f32_minmax_params f32_params;
    rl_qs8_requantization_params qs8_params;
    rl_window_geometry g;
    void *packed;
    const int8_t **weight_taps; /* int8: each tap's weights in the model's filter, in the packed tap order */
    const void **indirection;   /* rows * row_entries pointers */
    void *zero;               /* channels elements: 0.0f, or the int8 input zero point */
    char *output;
} rl_dwconv_state;

RL_STATIC_ASSERT(sizeof(rl_dwconv_state) <= 512, "rl_dwconv_state stays a small header before its buffers");

/* One kernel call over `pixels` pixels from pixel `first` of output row `row`; `first` is 0 where pixels share
 * columns (a row's entries are then its own layout), else any (each pixel's taps are its own, rows after
 * rows, so pixel `first` of row 0 may lie in any row). */
static void dwconv_pixels(const rl_dwconv_state *st, size_t row, size_t first, size_t pixels) {
    const void *const *ind = st->indirection + row * st->row_entries + first * st->taps;
    char *out = st->output + (row * st->row_pixels + first) * st->channels * st->element_bytes;
    if (st->int8)
        st->qs8.dwconv(st->channels, pixels, st->taps, (const int8_t *const *)ind, st->step, st->weight_taps,
                       st->packed, (int8_t *)out, st->channels, &st->qs8_params);
    else
        st->f32.dwconv(st->channels, pixels, st->taps, (const float *const *)ind, st->step,
                       (const float *)st->packed, (float *)out, st->channels, &st->f32_params);
}

/* Rows row .. row + rows - 1. Without shared columns, consecutive rows' indirection entries and outputs are
 * contiguous and run in one call, which keeps the kernel's pixel passes full (a 3x3 layer in one call ran 16-19%
 * faster than in three); a row whose pixels share columns steps back at its end, so it is a call of its own. */
static void dwconv_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_dwconv_state *st = (const rl_dwconv_state *)context;
    if (st->step == st->taps) {
        dwconv_pixels(st, row, 0, rows * st->row_pixels);
        return;
    }
    for (size_t r = row; r < row + rows; ++r) dwconv_pixels(st, r, 0, st->row_pixels);
}

static rl_status run_dwconv(rl_plan *plan, rl_op *op) {
    rl_dwconv_state *st = (rl_dwconv_state *)op->state;
    st->output = (char *)rl_output(plan, op, 0)->data;
    if (st->pack_each_run) {
        const rl_tensor *bias = rl_input(plan, op, 2);
        rl_pack_f32_dwconv(st->channels, (size_t)st->g.filter_h, (size_t)st->g.filter_w, st->f32.channel_tile,
                           (const float *)rl_input(plan, op, 1)->data,
                           bias ? (const float *)bias->data : NULL, (float *)st->packed);
    }
    rl_parallelize_rows(plan, dwconv_rows, st, st->rows, st->rows * st->row_pixels * st->channels * st->taps);
    return RL_OK;
}

/* Banded execution (bands.h): output pixels first .. first + count - 1, reading the input rows around them:
 * whole rows where pixels share columns, else any pixels (each pixel's taps are its own, row after row). */
static void begin_dwconv_rows(rl_plan *plan, rl_op *op) {
    ((rl_dwconv_state *)op->state)->output = (char *)rl_output(plan, op, 0)->data;
}

static void run_dwconv_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    const rl_dwconv_state *st = (const rl_dwconv_state *)op->state;
    if (st->step != st->taps) {
        dwconv_rows(op->state, first / st->row_pixels, 0, count / st->row_pixels, 1);
        return;
    }
    dwconv_pixels(st, 0, first, count);
}

/* Filters up to this tall find their input rows once per output row. */
#define RL_DWCONV_ROWS_AT_ONCE 16

static rl_status setup_indirection(rl_plan *plan, rl_op *op) {
    rl_dwconv_state *st = (rl_dwconv_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const char *input = (const char *)rl_input(plan, op, 0)->data;
    const size_t pixel_bytes = st->channels * st->element_bytes;
    const size_t filter_h = (size_t)g->filter_h, step_columns = st->step / filter_h;
    for (size_t r = 0; r < st->rows; ++r) {
        const size_t b = r / (size_t)g->out_h;
        const int32_t oy = (int32_t)(r % (size_t)g->out_h);
        const void **row = st->indirection + r * st->row_entries;
        /* Shared columns (step_columns < filter_w) are written once: the first filter_w - step_columns columns of a
         * pixel are the last ones of the pixel before, the same pointers, already written. Writing them again for
         * every pixel that reads them cost readying MobileNetV2 0.35 int8 ~1.3M instructions (x86) where it now
         * costs about half. */
        const int32_t overlap = g->filter_w > (int32_t)step_columns ? g->filter_w - (int32_t)step_columns : 0;
        if (filter_h > RL_DWCONV_ROWS_AT_ONCE) { /* rl_window_tap per pointer */
            for (int32_t ox = 0; ox < g->out_w; ++ox)
                for (int32_t fx = ox > 0 ? overlap : 0; fx < g->filter_w; ++fx) {
                    const void **column = row + ((size_t)ox * step_columns + (size_t)fx) * filter_h;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy)
                        column[fy] = rl_window_tap(g, input, pixel_bytes, st->zero, b, oy, ox, fy, fx);
                }
            continue;
        }
        /* The filter's input rows for this output row, found once (NULL: padding), so that a pointer is its row's
         * start plus its column (rl_window_tap's bounds and products per pointer were most of this loop, ~4M
         * instructions of readying MobileNetV2 1.0 int8 on x86). */
        const char *rows_at[RL_DWCONV_ROWS_AT_ONCE];
        for (int32_t fy = 0; fy < g->filter_h; ++fy) {
            const int32_t iy = oy * g->stride_h - g->pad_h + fy * g->dilation_h;
            const size_t first_pixel = (b * (size_t)g->in_h + (size_t)iy) * (size_t)g->in_w;
            rows_at[fy] = iy < 0 || iy >= g->in_h ? NULL : input + first_pixel * pixel_bytes;
        }
        for (int32_t ox = 0; ox < g->out_w; ++ox)
            for (int32_t fx = ox > 0 ? overlap : 0; fx < g->filter_w; ++fx) {
                const void **column = row + ((size_t)ox * step_columns + (size_t)fx) * filter_h;
                const int32_t ix = ox * g->stride_w - g->pad_w + fx * g->dilation_w;
                if (ix < 0 || ix >= g->in_w) {
                    for (size_t fy = 0; fy < filter_h; ++fy) column[fy] = st->zero;
                    continue;
                }
                const size_t offset = (size_t)ix * pixel_bytes;
                for (size_t fy = 0; fy < filter_h; ++fy)
                    column[fy] = rows_at[fy] ? (const void *)(rows_at[fy] + offset) : st->zero;
            }
    }
    return RL_OK;
}

/* Whether `channels` run better on the narrower kernels than on tiles of `tile`: fewer than two tiles and
 * not a whole number of them, so the wide kernel spends a third to a half of its lanes masked off, and its
 * one-pixel tail lost the four-pixel loop's overlap. On an AVX-512 Xeon, mobilenet_v2's 16- and
 * 48-channel layers ran 1.2-1.8x faster on AVX2's 16-channel kernels than on AVX-512's 32-channel ones
 * (float and int8); from 96 channels up the wide kernels were as fast or faster. */
static int rl_dwconv_wants_narrow(size_t channels, size_t tile) { return channels < 2 * tile && channels % tile != 0; }

/* Whether `channels` run better on the 8-channel kernels (f32_dwconv_8c__avx2, qs8_qc8w_dwconv_8c__avx2) than on
 * AVX2's 16-channel ones: fewer than two 16-channel tiles and not a whole number of them. In single-layer models
 * on Zen 3 the 16-channel kernels took 1.4-2.3x the 8-channel ones' time on [1,64,64,24] 3x3 and [1,64,64,12]
 * 5x5 (float and int8) and on 4 and 8 channels; where a 16-channel tile is full (16, 48) the kernels alone
 * ran 1.5-2.3x faster on 16 channels than on 8, so those stay on it (AVX-512: the narrow config). */
static int rl_dwconv_wants_small(size_t channels) { return channels < 32 && channels % 16 != 0; }

rl_status rl_use_dwconv(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_tensor *output = rl_output(plan, op, 0);
    if (g->depth_multiplier != 1) return RL_OK;
    const int constant = rl_known_data(filter) && (!bias || rl_known_data(bias));
    int32_t int8;
    if (input->dtype == RL_FLOAT32 && filter->dtype == RL_FLOAT32 && output->dtype == RL_FLOAT32 &&
        (!bias || bias->dtype == RL_FLOAT32)) int8 = 0;
    else if (constant && input->dtype == RL_INT8 && filter->dtype == RL_INT8 && output->dtype == RL_INT8 && op->scratch)
        int8 = 1;
    else return RL_OK;
    const size_t channels = (size_t)g->out_c, taps = (size_t)g->filter_h * (size_t)g->filter_w;
    const size_t rows = (size_t)g->batch * (size_t)g->out_h, row_pixels = (size_t)g->out_w;
    if (channels == 0 || taps == 0 || rows == 0 || row_pixels == 0) return RL_OK;
    const size_t element_bytes = int8 ? 1 : sizeof(float);
    const int narrow = rl_dwconv_wants_narrow(channels, int8 ? plan->kernels->qs8_dwconv.channel_tile
                                                               : plan->kernels->f32_dwconv.channel_tile);
    const int small = rl_dwconv_wants_small(channels);
    const rl_f32_dwconv_config f32 = small    ? plan->kernels->f32_dwconv_small
                                     : narrow ? plan->kernels->f32_dwconv_narrow
                                              : plan->kernels->f32_dwconv;
    rl_qs8_dwconv_config qs8 = small    ? plan->kernels->qs8_dwconv_small
                               : narrow ? plan->kernels->qs8_dwconv_narrow
                                        : plan->kernels->qs8_dwconv;
    if (int8 && qs8.dwconv_pairs && constant && !memchr(filter->data, 0x80, channels * taps))
        qs8.dwconv = qs8.dwconv_pairs; /* no weight of -128: two taps' products fit int16 */
    const size_t packed_bytes = int8 ? rl_qs8_dwconv_packed_size(channels, qs8.channel_tile)
                                     : rl_f32_dwconv_packed_size(channels, taps, f32.channel_tile);
    const size_t weight_taps_bytes = int8 ? taps * sizeof(const int8_t *) : 0;
    /* Short rows run several to a kernel call instead (a 3x3 layer ran 16-19% faster in one call than in
     * three); at 16 pixels a row and up, a call per row costs nothing measurable (MobileNet's depthwise time
     * within noise) and the 48- and 24-pixel layers hold most of the pointers. */
    const int shared = g->dilation_w == 1 && g->stride_w < g->filter_w && row_pixels >= 16;
    const size_t step = shared ? (size_t)g->stride_w * (size_t)g->filter_h : taps;
    const size_t row_entries = shared ? ((row_pixels - 1) * (size_t)g->stride_w + (size_t)g->filter_w) * (size_t)g->filter_h
                                      : row_pixels * taps;
    const size_t indirection_bytes = rows * row_entries * sizeof(void *);
    const size_t zero_bytes = channels * element_bytes;
    const size_t sizes[5] = {sizeof(rl_dwconv_state), packed_bytes, indirection_bytes, zero_bytes, weight_taps_bytes};
    void *parts[5];
    rl_dwconv_state *st = (rl_dwconv_state *)rl_op_state_parts(plan, op, 5, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    st->int8 = int8;
    st->pack_each_run = !constant; /* float32 only: int8 weights that change are refused above */
    st->channels = channels;
    st->taps = taps;
    st->rows = rows;
    st->row_pixels = row_pixels;
    st->step = step;
    st->row_entries = row_entries;
    st->element_bytes = element_bytes;
    st->f32 = f32;
    st->qs8 = qs8;
    st->g = *g;
    st->packed = parts[1];
    st->indirection = (const void **)parts[2];
    st->zero = parts[3];
    st->weight_taps = (const int8_t **)parts[4];
    /* The tap table counts with what is packed: it is what the op keeps to find the weights. */
    op->packed_weight_bytes = packed_bytes + weight_taps_bytes;
    /* int8 reads its filter in place at every invoke: only the bias is packed and never read again. */
    op->packed_inputs = !constant ? 0 : int8 ? 1u << 2 : RL_PACKED_FILTER_AND_BIAS;
    st->f32_params = (rl_f32_minmax_params){.min = g->act_min, .max = g->act_max};
    if (int8) {
        const rl_quant_params *q = &op->prep.q;
        st->qs8_params = rl_qs8_requantization_of(q);
        memset(st->zero, (int)(int8_t)q->input_zero_point[0], zero_bytes);
        /* A constant's data never moves, so the table can point into it for the plan's life. */
        rl_qs8_dwconv_weight_taps(channels, (size_t)g->filter_h, (size_t)g->filter_w, (const int8_t *)filter->data,
                                  st->weight_taps);
        rl_pack_qs8_dwconv(channels, taps, qs8.channel_tile, q->input_zero_point[0], (const int8_t *)filter->data,
                           bias ? (const int32_t *)bias->data : NULL, (const float *)op->scratch, st->packed);
    } else if (constant) {
        rl_pack_f32_dwconv(channels, (size_t)g->filter_h, (size_t)g->filter_w, f32.channel_tile, (const float *)filter->data,
                           bias ? (const float *)bias->data : NULL, (float *)st->packed);
    }
    op->run = run_dwconv;
    op->setup = setup_indirection;
    if (constant) {
        op->band_rows = rows;
        op->band_row_pixels = row_pixels;
        op->band_whole_rows = shared;
        op->begin_rows = begin_dwconv_rows;
        op->run_rows = run_dwconv_rows;
    }
    return RL_OK;
}
