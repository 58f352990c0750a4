/* conv_gemm.c — CONV_2D and FULLY_CONNECTED as GEMM (1x1 stride-1 convolutions, fully connected: the
 * input rows are the GEMM's rows) or IGEMM (every other convolution: an indirection buffer of input-pixel
 * pointers, one per output pixel and filter tap, or filter row for int8 over few channels, so no im2col copy
 * is made). See conv_gemm.h. */
#include <float.h>
#include <string.h>

#include "bands.h"
#include "conv_gemm.h"
#include "f32_configs.h"
#include "f32_microkernels.h"
#include "fc_gemv.h"
#include "fc_rowdot.h"
#include "row_taps.h"

/* The op's typed state: one allocation (rl_op_state) holding this struct, the packed weights, the
 * indirection buffer and the zero buffer that padding taps point at. */
typedef struct {
    int32_t int8;   /* qs8 kernels, else float32 */
    int32_t direct; /* GEMM on the input rows; else IGEMM through the indirection buffer */
    size_t m, n, kc, ks;
    /* int8 IGEMM with kc not a multiple of a kr above 2 (an RGB first layer, kc 3, on VNNI's kr 4): each
     * invoke first copies the input into arena scratch with pixels kernel_kc = kc rounded up to kr bytes
     * apart, so the kernel reads whole blocks instead of loading every tap's short row byte by byte; the
     * packed weights are zero there. */
    int32_t padded_input;
    size_t kernel_kc;
    /* A convolution over few input channels (kc < 8: a first layer, RGB or one channel), dilation 1 along x:
     * an IGEMM tap per filter row, not per filter tap (row_taps.h), ks = fh and kc = fw * kc here. int8: the
     * sums are the per-tap IGEMM's, in another order (wrapping int32 addition, the same bits); per tap an
     * IGEMM kernel loads and pads a row of a few bytes to its kr (kc 3 on AVX2's kr 2: 36 products for 27),
     * per filter row it reads 9 bytes (30). float: the same products added in the same order (tap by tap,
     * channel by channel), while a kernel's k loop runs whole vectors instead of a remainder per tap (ViT's
     * 16 x 16 stride-16 patches of RGB: 256 taps of 3 floats, now 16 rows of 48). The edge rows live in
     * arena scratch. */
    int32_t row_taps;
    size_t in_c;                                 /* the input's channels (kc is fw of them) */
    size_t in_pixel_bytes;                       /* in_c * element_bytes: row_taps.h counts in bytes */
    rl_row_tap_edges edges; /* output columns whose filter rows straddle the padding */
    size_t mr, nr, panel_bytes;
    size_t element_bytes;
    rl_f32_gemm_config f32;
    rl_qs8_gemm_config qs8;
    rl_f32_minmax_params f32_params;
    rl_qs8_requantization_params qs8_params;
    rl_window_geometry g;
    void *packed;
    const void **indirection; /* ceil(m / mr) blocks of ks * mr pointers */
    void *zero;               /* kc elements: 0.0f, or the int8 input zero point */
    /* Set once the arena is placed. */
    const char *a;
    char *c;
    /* Weights that are not constants (a variable a training step updates): packed at every invoke into the
     * op's arena scratch (scratch for one step, not packed weights the plan keeps). */
    int32_t pack_each_run;
} rl_gemm_state;

RL_STATIC_ASSERT(sizeof(rl_gemm_state) <= 512, "rl_gemm_state stays a small header before its buffers");

/* Rows i .. i + rows - 1 (i a multiple of mr), columns j .. j + columns - 1 (j a multiple of nr), all rows
 * over one block of columns. */
static void gemm_block(const rl_gemm_state *st, size_t i, size_t j, size_t rows, size_t columns) {
    const char *w = (const char *)st->packed + (j / st->nr) * st->panel_bytes;
    const size_t a_row = st->kc * st->element_bytes, c_row = st->n * st->element_bytes;
    if (st->int8 && st->qs8.any_m) { /* the kernel walks the tile's blocks of mr rows itself */
        char *c = st->c + i * c_row + j * st->element_bytes;
        if (st->direct)
            st->qs8.gemm(rows, columns, st->kc, (const int8_t *)(st->a + i * a_row), st->kc, w, (int8_t *)c, st->n,
                         &st->qs8_params);
        else
            st->qs8.igemm(rows, columns, st->kernel_kc, st->ks, (const int8_t *const *)(st->indirection + i * st->ks),
                          w, (int8_t *)c, st->n, &st->qs8_params);
        return;
    }
    for (size_t r = i; r < i + rows; r += st->mr) {
        const size_t mr = i + rows - r < st->mr ? i + rows - r : st->mr;
        char *c = st->c + r * c_row + j * st->element_bytes;
        if (st->int8) {
            if (st->direct)
                st->qs8.gemm(mr, columns, st->kc, (const int8_t *)(st->a + r * a_row), st->kc, w, (int8_t *)c, st->n,
                             &st->qs8_params);
            else
                st->qs8.igemm(mr, columns, st->kernel_kc, st->ks, (const int8_t *const *)(st->indirection + r * st->ks), w,
                              (int8_t *)c, st->n, &st->qs8_params);
        } else {
            if (st->direct)
                (mr == 1 && st->f32.gemm1 ? st->f32.gemm1 : st->f32.gemm)(
                    mr, columns, st->kc, (const float *)(st->a + r * a_row), st->kc, (const float *)w, (float *)c,
                    st->n, &st->f32_params);
            else
                st->f32.igemm(mr, columns, st->kc, st->ks, (const float *const *)(st->indirection + r * st->ks),
                              (const float *)w, (float *)c, st->n, &st->f32_params);
        }
    }
}

/* The packed weights a tile reads, in blocks of columns of at most RL_GEMM_WEIGHT_BLOCK_BYTES, each block over
 * all the tile's rows: a kernel call walks its columns' panels once per mr rows, so weights larger than the
 * core's L2 cache (a whisper-sized FULLY_CONNECTED: 2.4 MB) were read from L3 once per 7 rows; a block stays
 * in L2 while the rows' inputs, mr rows of them in L1 at a time, are read once per block. On a lent Intel
 * Xeon (2 MB of L2, a slower shared L3) whisper's [1500, 384] x [384, 1536] and [1500, 1536] x [1536, 384] went
 * from 1.41x and 1.45x XNNPACK's time to 1.12x and 0.82x (same run); on AMD's Zen 4, whose L3 keeps up, no
 * change. Each output is still one kernel call's sum over all of k: the same results. */
#define RL_GEMM_WEIGHT_BLOCK_BYTES (512u * 1024u)

static void gemm_tile(void *context, size_t i, size_t j, size_t rows, size_t columns) {
    const rl_gemm_state *st = (const rl_gemm_state *)context;
    const size_t panels = RL_GEMM_WEIGHT_BLOCK_BYTES / st->panel_bytes, block = (panels > 1 ? panels : 1) * st->nr;
    for (size_t jb = j; jb < j + columns; jb += block)
        gemm_block(st, i, jb, rows, j + columns - jb < block ? j + columns - jb : block);
}

/* float32 weights into st->packed: [n][ks][kc] with an optional bias. [n][ks][kc] is w [n][k] with k = ks * kc,
 * so the config's SIMD packer makes the same panels (zero biases) in whole vectors, and the bias is written over
 * them: the scalar packer moved each float alone, and on aarch64 packing was a third of a MobileNet's start. */
static void pack_y(const rl_gemm_state *st, const float *y, const float *bias) {
    float *packed = (float *)st->packed;
    /* The scalar packw tests each column against n per float; rl_pack_f32_gemm's full panels do not. */
    if (!st->f32.packw_goi || st->f32.packw_goi == f32_gemm_packw_goi__scalar) {
        rl_pack_f32_gemm(st->n, st->ks, st->kc, st->nr, y, bias, packed);
        return;
    }
    const size_t depth = st->ks * st->kc;
    st->f32.packw_goi(st->n, depth, st->nr, y, packed);
    if (bias == NULL) return;
    for (size_t n0 = 0; n0 < st->n; n0 += st->nr) {
        const size_t cols = st->n - n0 < st->nr ? st->n - n0 : st->nr;
        memcpy(packed, bias + n0, cols * sizeof(float));
        packed += rl_f32_gemm_panel_width(st->n, n0, st->nr) * (1 + depth);
    }
}

static rl_status run_gemm(rl_plan *plan, rl_op *op) {
    rl_gemm_state *st = (rl_gemm_state *)op->state;
    st->a = (const char *)rl_input(plan, op, 0)->data;
    st->c = (char *)rl_output(plan, op, 0)->data;
    if (st->pack_each_run) {
        const rl_tensor *bias = rl_input(plan, op, 2);
        st->packed = op->arena_scratch;
        pack_y(st, (const float *)rl_input(plan, op, 1)->data, bias ? (const float *)bias->data : NULL);
    }
    if (st->row_taps)
        rl_row_taps_fill_edges(&st->g, &st->edges, st->in_pixel_bytes, (const int8_t *)st->a,
                               (const int8_t *)st->zero, 0, (int8_t *)op->arena_scratch);
    if (st->padded_input) {
        const size_t pixels = (size_t)st->g.batch * (size_t)st->g.in_h * (size_t)st->g.in_w;
        char *padded = (char *)op->arena_scratch;
        for (size_t p = 0; p < pixels; ++p) memcpy(padded + p * st->kernel_kc, st->a + p * st->kc, st->kc);
    }
    rl_parallelize_gemm(plan, gemm_tile, st, st->m, st->n, st->mr, st->nr, st->m * st->n * st->kc * st->ks);
    return RL_OK;
}

/* One pointer per (output pixel, tap), grouped as the IGEMM kernel reads them: per block of mr pixels,
 * tap-major. Pixels past m repeat the last one, so every slot is a valid pointer. */
static rl_status setup_indirection(rl_plan *plan, rl_op *op) {
    rl_gemm_state *st = (rl_gemm_state *)op->state;
    if (st->row_taps) {
        rl_row_taps_indirection(&st->g, &st->edges, st->m, st->mr, st->in_pixel_bytes,
                                (const int8_t *)rl_input(plan, op, 0)->data, (const int8_t *)op->arena_scratch,
                                (const int8_t *)st->zero, 0, st->indirection);
        return RL_OK;
    }
    const rl_window_geometry *g = &st->g;
    const char *input = st->padded_input ? (const char *)op->arena_scratch : (const char *)rl_input(plan, op, 0)->data;
    const size_t pixel_bytes = st->kernel_kc * st->element_bytes;
    const size_t blocks = (st->m + st->mr - 1) / st->mr;
    for (size_t block = 0; block < blocks; ++block) {
        for (size_t i = 0; i < st->mr; ++i) {
            size_t pixel = block * st->mr + i;
            if (pixel >= st->m) pixel = st->m - 1;
            const int32_t ox = (int32_t)(pixel % (size_t)g->out_w);
            const int32_t oy = (int32_t)(pixel / (size_t)g->out_w % (size_t)g->out_h);
            const size_t b = pixel / ((size_t)g->out_w * (size_t)g->out_h);
            for (int32_t fy = 0; fy < g->filter_h; ++fy)
                for (int32_t fx = 0; fx < g->filter_w; ++fx)
                    st->indirection[(block * st->ks + (size_t)(fy * g->filter_w + fx)) * st->mr + i] =
                        rl_window_tap(g, input, pixel_bytes, st->zero, b, oy, ox, fy, fx);
        }
    }
    return RL_OK;
}

/* Allocates the state with room for the packed weights, the indirection buffer and the zero buffer, and
 * packs the weights ([n][ks][kc]). */
static rl_status build_state(rl_plan *plan, rl_op *op, rl_gemm_state *proto) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const size_t n = proto->n, ks = proto->ks, kc = proto->kc;
    size_t packed_bytes;
    if (proto->int8 && plan->kernels->qs8_gemm_pairs.gemm && !memchr(filter->data, 0x80, n * ks * kc))
        proto->qs8 = plan->kernels->qs8_gemm_pairs; /* no weight of -128: two k's products fit int16 */
    if (proto->int8) {
        proto->mr = proto->qs8.mr;
        proto->nr = proto->qs8.nr;
        packed_bytes = rl_qs8_gemm_packed_size(n, ks, kc, proto->nr, proto->qs8.kr);
        proto->panel_bytes = rl_qs8_gemm_packed_size(proto->nr, ks, kc, proto->nr, proto->qs8.kr);
    } else {
        proto->mr = proto->f32.mr;
        proto->nr = proto->f32.nr;
        packed_bytes = rl_f32_gemm_packed_size(n, ks, kc, proto->nr);
        proto->panel_bytes = rl_f32_gemm_packed_size(proto->nr, ks, kc, proto->nr);
    }
    proto->kernel_kc = kc;
    if (proto->row_taps) {
        proto->edges = rl_row_tap_edges_of(&proto->g);
        proto->in_pixel_bytes = proto->in_c * proto->element_bytes;
        rl_request_arena_scratch(op, rl_row_tap_edge_bytes(&proto->g, &proto->edges, proto->in_pixel_bytes));
    }
    /* Kernels with blocks of 2 read an odd row's last byte exactly; wider blocks are worth the copy. */
    if (proto->int8 && !proto->direct && !proto->row_taps && kc % proto->qs8.kr != 0 && proto->qs8.kr > 2) {
        proto->padded_input = 1;
        proto->kernel_kc = (kc + proto->qs8.kr - 1) / proto->qs8.kr * proto->qs8.kr;
        rl_request_arena_scratch(op, (size_t)proto->g.batch * (size_t)proto->g.in_h * (size_t)proto->g.in_w *
                                         proto->kernel_kc);
    }
    if (proto->pack_each_run) { /* weights that change between invokes: packed at every invoke */
        rl_request_arena_scratch(op, packed_bytes);
        packed_bytes = 0;
    }
    const size_t blocks = (proto->m + proto->mr - 1) / proto->mr;
    const size_t indirection_bytes = proto->direct ? 0 : blocks * ks * proto->mr * sizeof(void *);
    const size_t zero_bytes = proto->direct ? 0 : proto->kernel_kc * proto->element_bytes;
    const size_t sizes[4] = {sizeof(rl_gemm_state), packed_bytes, indirection_bytes, zero_bytes};
    void *parts[4];
    rl_gemm_state *st = (rl_gemm_state *)rl_op_state_parts(plan, op, 4, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    *st = *proto;
    st->packed = parts[1];
    st->indirection = (const void **)parts[2];
    st->zero = parts[3];
    op->packed_weight_bytes = packed_bytes;
    op->packed_inputs = st->pack_each_run ? 0 : RL_PACKED_FILTER_AND_BIAS;
    if (st->int8) {
        const int32_t izp = st->qs8_params.input_zero_point;
        if (zero_bytes) memset(st->zero, (int)(int8_t)izp, zero_bytes);
        rl_pack_qs8_gemm_for(&st->qs8, n, ks, kc, izp, (const int8_t *)filter->data,
                             bias ? (const int32_t *)bias->data : NULL, (const float *)op->scratch, st->packed);
    } else if (!st->pack_each_run) { /* weights that change between invokes are packed by run_gemm */
        pack_y(st, (const float *)filter->data, bias ? (const float *)bias->data : NULL);
    }
    op->run = run_gemm;
    op->setup = st->direct ? NULL : setup_indirection;
    return RL_OK;
}

/* float32, or int8 throughout with per-channel weights; constant weights and bias. */
static int gemm_dtypes(rl_plan *plan, const rl_op *op, int32_t *int8) {
    const rl_tensor *input = rl_input(plan, op, 0), *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_tensor *output = rl_output(plan, op, 0);
    if (!rl_known_data(filter) || (bias && !rl_known_data(bias))) return 0;
    if (input->dtype == RL_FLOAT32 && filter->dtype == RL_FLOAT32 && output->dtype == RL_FLOAT32) {
        *int8 = 0;
        return 1;
    }
    if (input->dtype == RL_INT8 && filter->dtype == RL_INT8 && output->dtype == RL_INT8 && op->scratch) {
        *int8 = 1;
        return 1;
    }
    return 0;
}

static void fill_params(const rl_op *op, rl_gemm_state *st, float act_min, float act_max, const rl_plan *plan) {
    st->f32 = st->n >= RL_F32_GEMM_WIDE_MIN_COLUMNS ? plan->kernels->f32_gemm_wide : plan->kernels->f32_gemm;
    st->qs8 = plan->kernels->qs8_gemm;
    st->element_bytes = st->int8 ? 1 : sizeof(float);
    st->f32_params = (rl_f32_minmax_params){.min = act_min, .max = act_max};
    st->qs8_params = rl_qs8_requantization_of(&op->prep.q);
}

/* float32 weights (and bias) that are not constants: a training step's, packed at every invoke. */
static int float_weights_that_change(rl_plan *plan, const rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0), *weights = rl_input(plan, op, 1);
    const rl_tensor *bias = rl_input(plan, op, 2), *output = rl_output(plan, op, 0);
    return input->dtype == RL_FLOAT32 && weights->dtype == RL_FLOAT32 && output->dtype == RL_FLOAT32 &&
           (!bias || bias->dtype == RL_FLOAT32);
}

/* Banded execution (bands.h) of a 1x1 stride-1 convolution: output pixel p (the GEMM's row p) reads only
 * input pixel p. */
static void begin_gemm_rows(rl_plan *plan, rl_op *op) {
    rl_gemm_state *st = (rl_gemm_state *)op->state;
    st->a = (const char *)rl_input(plan, op, 0)->data;
    st->c = (char *)rl_output(plan, op, 0)->data;
}

static void run_gemm_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    gemm_tile(op->state, first, 0, count, ((const rl_gemm_state *)op->state)->n);
}

rl_status rl_use_gemm_conv2d(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    rl_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    if (!gemm_dtypes(plan, op, &proto.int8)) {
        if (!float_weights_that_change(plan, op)) return RL_OK;
        proto.pack_each_run = 1; /* a training step's filter, or a filter gradient's dy */
    }
    proto.g = *g;
    proto.m = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
    proto.n = (size_t)g->out_c;
    proto.kc = (size_t)g->in_c;
    proto.ks = (size_t)g->filter_h * (size_t)g->filter_w;
    proto.in_c = proto.kc;
    if (proto.m == 0 || proto.n == 0 || proto.kc == 0) return RL_OK;
    proto.direct = g->filter_h == 1 && g->filter_w == 1 && g->stride_h == 1 && g->stride_w == 1 && g->pad_h == 0 &&
                   g->pad_w == 0;
    /* An int8 1x1 convolution of one or two pixels (a squeeze-and-excite block's two, a classifier head after
     * the global pool) is a FULLY_CONNECTED of that many rows, its OHWI filter the [units][depth] matrix: the
     * row-dot kernels read it in place, where the GEMM ran its whole 6- or 7-row tile for the one row. int8
     * only: integer sums are the same in any order, but the float row-dot kernels add in another order than
     * the GEMM (and XNNPACK), and MediaPipe's selfie segmentation, whose squeeze-and-excite blocks feed a
     * 256x256 mask, moved 3e-5 of its output's range from LiteRT's (bit for bit on the GEMM). */
    if (proto.direct && !proto.pack_each_run && proto.int8 && proto.m <= RL_FC_ROWDOT_MAX_ROWS) {
        op->prep.act_min = g->act_min;
        op->prep.act_max = g->act_max;
        return rl_use_fc_rowdot(plan, op, proto.m, proto.n, proto.kc, proto.int8);
    }
    /* Not with weights packed at every invoke: those take the arena scratch the edge rows would. */
    proto.row_taps = !proto.direct && !proto.pack_each_run && proto.kc < 8 && g->filter_w > 1 && g->dilation_w == 1;
    if (proto.row_taps) {
        proto.ks = (size_t)g->filter_h;
        proto.kc = (size_t)g->filter_w * proto.in_c;
    }
    fill_params(op, &proto, g->act_min, g->act_max, plan);
    const rl_status s = build_state(plan, op, &proto);
    /* A direct convolution with constant weights: run_gemm does nothing before its tiles (no packing, no
     * padded or transposed copy in scratch), so a band of rows is just those rows' tiles. */
    if (s == RL_OK && proto.direct && !proto.pack_each_run) {
        op->band_rows = (size_t)g->batch * (size_t)g->out_h;
        op->band_row_pixels = (size_t)g->out_w;
        op->band_pointwise = 1;
        op->begin_rows = begin_gemm_rows;
        op->run_rows = run_gemm_rows;
    }
    return s;
}

rl_status rl_use_gemm_fully_connected(rl_plan *plan, rl_op *op, int64_t rows, int32_t units, int32_t depth) {
    rl_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    if (!gemm_dtypes(plan, op, &proto.int8)) {
        if (!float_weights_that_change(plan, op)) return RL_OK;
        proto.pack_each_run = 1; /* bias too */
    }
    if (rows <= 0 || units <= 0 || depth <= 0) return RL_OK;
    /* LiteRT's builtin kernel runs this one, not XNNPACK: its order (fc_gemv.c) */
    if (proto.pack_each_run && rows == 1) return rl_use_fc_gemv(plan, op, (size_t)units, (size_t)depth);
    if (!proto.pack_each_run && rows <= RL_FC_ROWDOT_MAX_ROWS) /* weights read in place, not packed */
        return rl_use_fc_rowdot(plan, op, (size_t)rows, (size_t)units, (size_t)depth, proto.int8);
    proto.m = (size_t)rows;
    proto.n = (size_t)units;
    proto.kc = (size_t)depth;
    proto.ks = 1;
    proto.direct = 1;
    fill_params(op, &proto, op->prep.act_min, op->prep.act_max, plan);
    const rl_status s = build_state(plan, op, &proto);
    /* Output row p (a transformer's token) reads only input row p, which is the input's pixel p when its last
     * axis is the depth: a band of tokens runs on from the layer norm before it, as a 1x1 convolution does. */
    const rl_shape *in = &rl_input(plan, op, 0)->shape;
    if (s == RL_OK && !proto.pack_each_run && in->rank > 0 && in->dims[in->rank - 1] == depth) {
        rl_offer_pixel_rows(op, rl_output(plan, op, 0), run_gemm_rows);
        op->begin_rows = begin_gemm_rows;
    }
    return s;
}
