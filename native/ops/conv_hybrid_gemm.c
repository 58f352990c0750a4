/* conv_hybrid_gemm.c — hybrid CONV_2D, FULLY_CONNECTED and BATCH_MATMUL as XNNPACK's dynamically quantized
 * ops run them (conv_hybrid.c says which quantization applies when), on the qd8 GEMM/IGEMM micro-kernels. See
 * conv_hybrid_gemm.h.
 *
 * At each invoke the float input is quantized as f32_qd8_quantize_ref does, per row (GEMM: a fully connected
 * row, a BATCH_MATMUL row of x, or a pixel of a 1x1 stride-1 convolution: inside the tiles, FUSED_BLOCK_BYTES)
 * or per image (IGEMM: in parts across the threads, conv_hybrid_quantize.h) into arena scratch, with each
 * row's or image's zero point and scale beside it; the IGEMM's padding taps point at a buffer per image that
 * holds that image's zero point, so they add nothing, as in the reference. Direct GEMMs that read the same rows
 * (attention's Q, K and V projections) quantize them once: share_quantized_rows. A GEMM's rows and an IGEMM's
 * images are stored as the path's gemm_u8 and igemm_u8 read them where it has them (qd8_gemm.h: each byte plus
 * 128, the same quantization; the zero buffers likewise). Each output value is one kernel's sum and epilogue,
 * whatever the tile it falls in, so the result does not depend on the thread count. */
#include <math.h>
#include <string.h>

#include "bands.h"
#include "conv_gemm.h"
#include "conv_hybrid_gemm.h"
#include "conv_hybrid_quantize.h"
#include "qd8_gemm.h"
#include "row_taps.h"

/* A GEMM quantizes its rows inside its tiles, a chunk of up to FUSED_CHUNK_ROWS rows at a time on the stack,
 * when mr rows fit here: no pass over the input before the product, no join between the two, and the rows are
 * in L1 when the kernel reads them. A tile of columns quantizes its rows again (the same bits), which costs
 * little beside the product. */
enum { FUSED_BLOCK_BYTES = 16384, FUSED_CHUNK_ROWS = 240 };

typedef struct {
    int32_t direct;    /* GEMM over the quantized rows; else IGEMM through the indirection buffer */
    int32_t fused;     /* direct, the rows quantized in the tiles that read them (FUSED_BLOCK_BYTES) */
    size_t chunk_rows; /* fused: rows quantized at a time, a multiple of mr */
    size_t m, n, kc, ks;
    size_t rows;       /* quantized rows: m for GEMM, the batch's images for IGEMM */
    size_t row_length; /* floats per quantized row (kc, or an image) */
    size_t pixels_per_image; /* IGEMM: output pixels per image, to find a pixel's quantization */
    /* A convolution over few input channels (kc < 8: a first layer), dilation 1 along x: an IGEMM tap per
     * filter row (row_taps.h), over the quantized image, the edge rows in arena scratch with each image's zero
     * point in the padding. */
    int32_t row_taps;
    int32_t y_is_kn; /* BATCH_MATMUL with adj_y false: the weights are [k][n] */
    size_t in_c;
    rl_row_tap_edges edges;
    size_t mr, nr, kr, panel_bytes;
    /* direct: the GEMM and the row quantization it reads (the path's gemm_u8 and quantize_u8 where it has
     * them: its rows' bytes plus 128, multiplied as they are) */
    rl_qd8_gemm_fn gemm, gemm_1row, gemm_4row, gemm_5row; /* for a block of one, 4, 5 rows or fewer, or NULL */
    rl_f32_quantize_fn quantize;
    /* IGEMM: the kernel and whether it reads the image's bytes plus 128 (the path's igemm_u8; the image quantizer
     * then writes them so, and the zero buffers hold the zero point plus 128) */
    rl_qd8_igemm_fn igemm;
    int32_t image_u8;
    rl_image_quantizer images; /* IGEMM: each image in parts across the threads */
    /* Shared rows (share_quantized_rows): shares_rows, this op quantizes rows that later hybrid GEMMs on the same
     * input reuse, into its arena scratch (a fused GEMM: in its first column tile); reads_shared, this op reads
     * op rows_from's quantized rows and quantizes none. */
    int32_t shares_rows, reads_shared, rows_from;
    rl_f32_minmax_params params;
    rl_window_geometry g;
    void *packed;
    const void **indirection; /* ceil(m / mr) blocks of ks * mr pointers into the quantized image */
    /* Offsets in the op's arena scratch: the quantized input, the rows' quantization, the zero buffers, the
     * row-tap edges, the image quantizer's scratch. */
    size_t quantization_offset, zero_offset, edge_offset, quantizer_offset;
    /* Set at each invoke. */
    const float *a;
    int8_t *q;
    rl_qd8_row_quantization *row_quantization;
    char *zero; /* IGEMM: the images' zero buffers */
    float *c;
} rl_qd8_gemm_state;

RL_STATIC_ASSERT(sizeof(rl_qd8_gemm_state) <= 512, "rl_qd8_gemm_state stays a small header before its buffers");

static size_t round_up(size_t x, size_t multiple) { return (x + multiple - 1) / multiple * multiple; }

/* A direct GEMM's block of mr rows or fewer. The mr-row kernel computes a short block's rows again up to mr, so
 * where the path has them one or two rows take the one-row kernel (streaming the weights twice costs less: hybrid
 * FULLY_CONNECTED of 2 rows, 768 -> 3072, 1.65x LiteRT+XNNPACK's time on the 8-row kernel, 0.93x), three or four
 * the 4-row one and five the 5-row one (768 -> 768 at 3, 4 and 5 rows: 1.51x, 1.48x and 1.47x XNNPACK's time on
 * the 8-row kernel; 0.82x, 0.83x and 1.04x). Six and seven stay on the 8-row kernel (0.80x: XNNPACK's tile is 5
 * rows, so it runs two). */
static inline void gemm_block(const rl_qd8_gemm_state *st, size_t mr, size_t columns, const int8_t *q, const void *w,
                              float *c, const rl_qd8_row_quantization *rq) {
    if (mr <= 2 && st->gemm_1row) {
        for (size_t i = 0; i < mr; ++i)
            st->gemm_1row(1, columns, st->kc, q + i * st->kc, st->kc, w, c + i * st->n, st->n, rq + i, &st->params);
        return;
    }
    const rl_qd8_gemm_fn gemm = mr <= 4 && st->gemm_4row ? st->gemm_4row : mr <= 5 && st->gemm_5row ? st->gemm_5row
                                                                                                   : st->gemm;
    gemm(mr, columns, st->kc, q, st->kc, w, c, st->n, rq, &st->params);
}

/* Rows i .. i + rows - 1 (i a multiple of mr), columns j .. j + columns - 1 (j a multiple of nr). */
static void qd8_tile(void *context, size_t i, size_t j, size_t rows, size_t columns) {
    const rl_qd8_gemm_state *st = (const rl_qd8_gemm_state *)context;
    const char *w = (const char *)st->packed + (j / st->nr) * st->panel_bytes;
    if (st->fused) { /* a chunk of rows quantized, then its blocks' products: two tight loops, in L1 */
        int8_t stack_q[FUSED_BLOCK_BYTES];
        rl_qd8_row_quantization stack_rq[FUSED_CHUNK_ROWS];
        /* Rows the later readers reuse go to the arena, from the first column tile only: every row has one, and
         * no two threads write the same row. */
        const int shared = st->shares_rows && j == 0;
        for (size_t chunk = i; chunk < i + rows; chunk += st->chunk_rows) {
            const size_t count = i + rows - chunk < st->chunk_rows ? i + rows - chunk : st->chunk_rows;
            int8_t *q = shared ? st->q + chunk * st->kc : stack_q;
            rl_qd8_row_quantization *rq = shared ? st->row_quantization + chunk : stack_rq;
            for (size_t k = 0; k < count; ++k)
                rq[k].scale = st->quantize((int64_t)st->kc, st->a + (chunk + k) * st->kc, q + k * st->kc,
                                           &rq[k].zero_point);
            for (size_t k = 0; k < count; k += st->mr)
                gemm_block(st, count - k < st->mr ? count - k : st->mr, columns, q + k * st->kc, w,
                           st->c + (chunk + k) * st->n + j, rq + k);
        }
        return;
    }
    for (size_t r = i; r < i + rows; r += st->mr) {
        const size_t mr = i + rows - r < st->mr ? i + rows - r : st->mr;
        float *c = st->c + r * st->n + j;
        if (st->direct) {
            gemm_block(st, mr, columns, st->q + r * st->kc, w, c, st->row_quantization + r);
        } else {
            rl_qd8_row_quantization rq[16]; /* each pixel's image's; mr is at most 16 */
            for (size_t k = 0; k < mr; ++k) rq[k] = st->row_quantization[(r + k) / st->pixels_per_image];
            st->igemm(mr, columns, st->kc, st->ks, (const int8_t *const *)(st->indirection + r * st->ks), w, c,
                          st->n, rq, &st->params);
        }
    }
}

/* Quantizes rows first .. first + count - 1 (pixels or rows of a GEMM), each on its own. */
static void quantize_rows(void *context, size_t first, size_t unused, size_t count, size_t one) {
    (void)unused, (void)one;
    const rl_qd8_gemm_state *st = (const rl_qd8_gemm_state *)context;
    for (size_t row = first; row < first + count; ++row) {
        int32_t zero_point = 0;
        const float scale = st->quantize((int64_t)st->row_length, st->a + row * st->row_length,
                                         st->q + row * st->row_length, &zero_point);
        st->row_quantization[row] = (rl_qd8_row_quantization){.zero_point = zero_point, .scale = scale};
    }
}

/* The tile split. A fused GEMM quantizes its rows in every tile that reads them, so a split across columns
 * quantizes each row once per column tile: on bert_tiny's 64 rows of 128 (8 blocks of rows, 2 column tiles
 * each on 2 threads) a third as many steps again as the tile's products. Whole rows, then, as long as every
 * thread gets two blocks of rows or more; the shared split (columns too) below that and for the other forms. */
static void parallelize_qd8_gemm(const rl_plan *plan, rl_qd8_gemm_state *st) {
    const size_t work = st->m * st->n * st->kc * st->ks;
    rl_threadpool *pool = rl_pool_for(plan, work);
    const size_t threads = (size_t)rl_threadpool_threads(pool), row_tiles = (st->m + st->mr - 1) / st->mr;
    if (st->fused && threads > 1 && row_tiles >= 2 * threads) {
        const size_t want = RL_TILES_PER_THREAD * threads;
        const size_t tile_i = st->mr * ((row_tiles + want - 1) / want);
        rl_parallelize_2d_tile_2d(pool, qd8_tile, st, st->m, st->n, tile_i, st->n);
        return;
    }
    rl_parallelize_gemm(plan, qd8_tile, st, st->m, st->n, st->mr, st->nr, work);
}

static rl_status run_qd8_gemm(rl_plan *plan, rl_op *op) {
    rl_qd8_gemm_state *st = (rl_qd8_gemm_state *)op->state;
    char *scratch = (char *)op->arena_scratch;
    st->a = (const float *)rl_input(plan, op, 0)->data;
    st->c = (float *)rl_output(plan, op, 0)->data;
    if (!st->reads_shared) { /* a reader's rows are where setup_shared_rows pointed them */
        st->q = (int8_t *)scratch;
        st->row_quantization = (rl_qd8_row_quantization *)(void *)(scratch + st->quantization_offset);
    }
    st->zero = scratch + st->zero_offset;
    if (st->direct && !st->fused && !st->reads_shared) { /* rows are independent (a per-pixel layer has
                                                            * thousands): split too */
        rl_parallelize_rows(plan, quantize_rows, st, st->rows, st->rows * st->row_length);
    } else if (!st->direct) {
        rl_quantize_images(plan, &st->images, st->a, st->q, scratch + st->quantizer_offset, st->row_quantization);
        const int32_t flip = st->image_u8 ? 0x80 : 0; /* a u8 image's zero byte: the zero point plus 128 */
        for (size_t b = 0; b < st->rows; ++b)
            memset(st->zero + b * st->kc, (int)(uint8_t)(st->row_quantization[b].zero_point ^ flip), st->kc);
    }
    if (st->row_taps)
        rl_row_taps_fill_edges(&st->g, &st->edges, st->in_c, st->q, (const int8_t *)st->zero, st->kc,
                               (int8_t *)scratch + st->edge_offset);
    parallelize_qd8_gemm(plan, st);
    return RL_OK;
}

/* Banded execution (bands.h) of a fused GEMM: a band of pixels is a run of the GEMM's rows. */
static void begin_qd8_gemm_rows(rl_plan *plan, rl_op *op) {
    rl_qd8_gemm_state *st = (rl_qd8_gemm_state *)op->state;
    st->a = (const float *)rl_input(plan, op, 0)->data;
    st->c = (float *)rl_output(plan, op, 0)->data;
}

static void run_qd8_gemm_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    qd8_tile(op->state, first, 0, count, ((const rl_qd8_gemm_state *)op->state)->n);
}

/* One pointer per (output pixel, tap) into the quantized image in arena scratch, or at its image's zero
 * buffer for a padding tap; per block of mr pixels, tap-major. Pixels past m repeat the last one. */
static rl_status setup_qd8_indirection(rl_plan *plan, rl_op *op) {
    (void)plan;
    rl_qd8_gemm_state *st = (rl_qd8_gemm_state *)op->state;
    const rl_window_geometry *g = &st->g;
    const char *quantized = (const char *)op->arena_scratch, *zero = quantized + st->zero_offset;
    if (st->row_taps) {
        rl_row_taps_indirection(g, &st->edges, st->m, st->mr, st->in_c, (const int8_t *)quantized,
                                (const int8_t *)quantized + st->edge_offset, (const int8_t *)zero, st->kc,
                                st->indirection);
        return RL_OK;
    }
    const size_t blocks = (st->m + st->mr - 1) / st->mr;
    for (size_t block = 0; block < blocks; ++block) {
        for (size_t i = 0; i < st->mr; ++i) {
            size_t pixel = block * st->mr + i;
            if (pixel >= st->m) pixel = st->m - 1;
            const int32_t ox = (int32_t)(pixel % (size_t)g->out_w);
            const int32_t oy = (int32_t)(pixel / (size_t)g->out_w % (size_t)g->out_h);
            const size_t b = pixel / st->pixels_per_image;
            for (int32_t fy = 0; fy < g->filter_h; ++fy)
                for (int32_t fx = 0; fx < g->filter_w; ++fx)
                    st->indirection[(block * st->ks + (size_t)(fy * g->filter_w + fx)) * st->mr + i] =
                        rl_window_tap(g, quantized, st->kc, zero + b * st->kc, b, oy, ox, fy, fx);
        }
    }
    return RL_OK;
}

/* Plans the arena scratch, allocates the state with the packed weights and the indirection buffer, packs
 * the weights ([n][ks][kc]) with the scales prepare left in op->scratch. */
static rl_status build_qd8_state(rl_plan *plan, rl_op *op, rl_qd8_gemm_state *proto) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    const rl_qd8_gemm_config *qd8 = &plan->kernels->qd8_gemm;
    /* no weight of -128: two k's products fit int16 (rl_qd8_gemm_pairs_config_for) */
    if (plan->kernels->qd8_gemm_pairs.gemm && !memchr(filter->data, 0x80, proto->n * proto->ks * proto->kc))
        qd8 = &plan->kernels->qd8_gemm_pairs;
    const int u8 = proto->direct && qd8->gemm_u8 && qd8->quantize_u8;
    proto->gemm = u8 ? qd8->gemm_u8 : qd8->gemm;
    proto->gemm_1row = u8 ? qd8->gemm_u8_1row : proto->direct ? qd8->gemm_1row : NULL;
    proto->gemm_4row = u8 ? qd8->gemm_u8_4row : NULL;
    proto->gemm_5row = u8 ? qd8->gemm_u8_5row : NULL;
    proto->quantize = u8 ? qd8->quantize_u8 : plan->kernels->qd8_quantize.qd8;
    proto->image_u8 = !proto->direct && qd8->igemm_u8 && qd8->quantize_values_u8;
    proto->igemm = proto->image_u8 ? qd8->igemm_u8 : qd8->igemm;
    proto->mr = qd8->mr;
    proto->nr = qd8->nr;
    proto->kr = qd8->kr;
    if (proto->mr > 16) return RL_OK; /* qd8_tile's row buffer */
    const size_t n = proto->n, ks = proto->ks, kc = proto->kc;
    const size_t packed_bytes = rl_qd8_gemm_packed_size(n, ks, kc, proto->nr, qd8->kr);
    proto->panel_bytes = rl_qd8_gemm_packed_size(proto->nr, ks, kc, proto->nr, qd8->kr);
    proto->fused = proto->direct && proto->mr * kc <= FUSED_BLOCK_BYTES;
    proto->chunk_rows = (FUSED_BLOCK_BYTES / kc < FUSED_CHUNK_ROWS ? FUSED_BLOCK_BYTES / kc : FUSED_CHUNK_ROWS) /
                        proto->mr * proto->mr;
    proto->quantization_offset = round_up(proto->rows * proto->row_length, 64);
    proto->zero_offset = round_up(proto->quantization_offset + proto->rows * sizeof(rl_qd8_row_quantization), 64);
    proto->edge_offset = round_up(proto->zero_offset + (proto->direct ? 0 : proto->rows * kc), 64);
    if (proto->row_taps) proto->edges = rl_row_tap_edges_of(&proto->g);
    proto->quantizer_offset = round_up(proto->edge_offset + (proto->row_taps ? rl_row_tap_edge_bytes(
                                                                 &proto->g, &proto->edges, proto->in_c) : 0), 64);
    const size_t quantizer_bytes = proto->direct ? 0 : rl_image_quantizer_init(&proto->images,
                                                                               &plan->kernels->qd8_quantize, 0,
                                                                               proto->rows, proto->row_length);
    if (proto->image_u8) proto->images.values = qd8->quantize_values_u8;
    if (!proto->fused) rl_request_arena_scratch(op, proto->quantizer_offset + quantizer_bytes);
    const size_t indirection_bytes = proto->direct ? 0 : (proto->m + proto->mr - 1) / proto->mr * ks * proto->mr *
                                                             sizeof(void *);
    const size_t sizes[3] = {sizeof(rl_qd8_gemm_state), packed_bytes, indirection_bytes};
    void *parts[3];
    rl_qd8_gemm_state *st = (rl_qd8_gemm_state *)rl_op_state_parts(plan, op, 3, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    *st = *proto;
    st->packed = parts[1];
    st->indirection = (const void **)parts[2];
    if (st->y_is_kn)
        rl_pack_qd8_gemm_kn(n, kc, st->nr, st->kr, (const int8_t *)filter->data, (const float *)op->scratch,
                            st->packed);
    else
        rl_pack_qd8_gemm(n, ks, kc, st->nr, st->kr, (const int8_t *)filter->data, (const float *)op->scratch,
                         bias ? (const float *)bias->data : NULL, st->packed);
    op->packed_weight_bytes = packed_bytes;
    op->packed_inputs = bias ? RL_PACKED_FILTER_AND_BIAS : 1u << 1;
    op->run = run_qd8_gemm;
    op->setup = st->direct ? NULL : setup_qd8_indirection;
    return RL_OK;
}

static int constant_weights(rl_plan *plan, const rl_op *op) {
    const rl_tensor *filter = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    return rl_known_data(filter) && (!bias || rl_known_data(bias)) && op->scratch;
}

rl_status rl_use_qd8_gemm_conv2d(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int per_pixel) {
    if (!constant_weights(plan, op)) return RL_OK;
    rl_qd8_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    proto.g = *g;
    proto.m = (size_t)g->batch * (size_t)g->out_h * (size_t)g->out_w;
    proto.n = (size_t)g->out_c;
    proto.kc = (size_t)g->in_c;
    proto.ks = (size_t)g->filter_h * (size_t)g->filter_w;
    if (proto.m == 0 || proto.n == 0 || proto.kc == 0 || proto.ks == 0) return RL_OK;
    proto.direct = per_pixel; /* a 1x1 stride-1 filter: output pixel p reads input pixel p */
    proto.pixels_per_image = (size_t)g->out_h * (size_t)g->out_w;
    proto.rows = per_pixel ? proto.m : (size_t)g->batch;
    proto.row_length = per_pixel ? proto.kc : (size_t)g->in_h * (size_t)g->in_w * proto.kc;
    proto.params = (rl_f32_minmax_params){.min = g->act_min, .max = g->act_max};
    proto.in_c = proto.kc;
    proto.row_taps = !per_pixel && proto.kc < 8 && g->filter_w > 1 && g->dilation_w == 1;
    if (proto.row_taps) {
        proto.ks = (size_t)g->filter_h;
        proto.kc = (size_t)g->filter_w * proto.in_c;
    }
    const rl_status s = build_qd8_state(plan, op, &proto);
    /* Pixel p's output reads only pixel p, quantized in the tile that computes it: a band of pixels is those
     * pixels' tiles, and it needs no scratch (bands.h). */
    if (s == RL_OK && op->run == run_qd8_gemm && proto.fused) {
        op->band_rows = (size_t)g->batch * (size_t)g->out_h;
        op->band_row_pixels = (size_t)g->out_w;
        op->band_pointwise = 1;
        op->begin_rows = begin_qd8_gemm_rows;
        op->run_rows = run_qd8_gemm_rows;
    }
    return s;
}

/* A fused GEMM whose output row p (a transformer's token) reads only row p of its input, which is the input's
 * pixel p when its last axis is the depth: a band of tokens quantizes its own rows in its tiles (no scratch) and
 * runs on from the layer norm before it, as the float FULLY_CONNECTED does (bands.h). On two threads
 * bert_tiny_dynamic's projections and MLP otherwise ran as 7 jobs per layer between the layer norms' bands. */
static void offer_fused_rows(rl_plan *plan, rl_op *op, const rl_qd8_gemm_state *proto) {
    const rl_shape *in = &rl_input(plan, op, 0)->shape;
    const rl_tensor *output = rl_output(plan, op, 0);
    if (op->run != run_qd8_gemm || !proto->fused || in->rank < 1 || (size_t)in->dims[in->rank - 1] != proto->kc ||
        output->shape.rank < 1 || (size_t)output->shape.dims[output->shape.rank - 1] != proto->n)
        return;
    rl_offer_pixel_rows(op, output, run_qd8_gemm_rows);
    op->begin_rows = begin_qd8_gemm_rows;
}

/* Where a direct GEMM's quantized rows are once the arena is placed: its own scratch, or (reads_shared) the scratch
 * of the op that quantizes them. */
static rl_status setup_shared_rows(rl_plan *plan, rl_op *op) {
    rl_qd8_gemm_state *st = (rl_qd8_gemm_state *)op->state;
    char *rows = (char *)(st->reads_shared ? plan->ops[st->rows_from].arena_scratch : op->arena_scratch);
    st->q = (int8_t *)rows;
    st->row_quantization = (rl_qd8_row_quantization *)(void *)(rows + st->quantization_offset);
    return RL_OK;
}

/* A direct hybrid GEMM of an earlier op that reads `op`'s input as `op` does and stores its quantized rows the same
 * way, or NULL. Row r's bytes and (zero point, scale) are a function of row r alone (XNNPACK's per-row
 * quantization, which LiteRT's default Interpreter applies to every hybrid FULLY_CONNECTED and BATCH_MATMUL,
 * whatever asymmetric_quantize_inputs says: conv_hybrid.c), so equal inputs, row lengths and row quantizers
 * give equal rows. */
static rl_op *earlier_quantizer_of_rows(rl_plan *plan, const rl_op *op, const rl_qd8_gemm_state *st) {
    for (rl_op *other = plan->ops; other < op; ++other) {
        if (other->run != run_qd8_gemm || other->folded || other->dynamic || other->inputs[0] != op->inputs[0])
            continue;
        const rl_qd8_gemm_state *o = (const rl_qd8_gemm_state *)other->state;
        if (o->direct && !o->reads_shared && o->m == st->m && o->kc == st->kc && o->quantize == st->quantize)
            return other;
    }
    return NULL;
}

/* Attention's Q, K and V projections read the same float rows and each quantized them (10% of bert_tiny_dynamic's
 * time, a pass over the rows per projection and per column tile): the first quantizes them once into its arena
 * scratch, which lives on to its last reader's step (arena_scratch_until), and the later ones read them there. In
 * bands each band's rows are quantized by the first op before the later ones read them in the same band. */
static void share_quantized_rows(rl_plan *plan, rl_op *op) {
    rl_qd8_gemm_state *st = (rl_qd8_gemm_state *)op->state;
    if (op->run != run_qd8_gemm || op->dynamic || !st->direct || op->inputs[0] < 0) return;
    rl_op *first = earlier_quantizer_of_rows(plan, op, st);
    if (!first) return;
    rl_qd8_gemm_state *f = (rl_qd8_gemm_state *)first->state;
    if (!f->shares_rows) {
        f->shares_rows = 1;
        rl_request_arena_scratch(first, f->quantization_offset + f->rows * sizeof(rl_qd8_row_quantization));
        first->setup = setup_shared_rows;
    }
    first->arena_scratch_until = (int32_t)(op - plan->ops);
    st->reads_shared = 1;
    st->rows_from = (int32_t)(first - plan->ops);
    st->fused = 0;
    op->arena_scratch_bytes = 0; /* the rows were all this op's scratch held */
    op->setup = setup_shared_rows;
}

rl_status rl_use_qd8_gemm_fully_connected(rl_plan *plan, rl_op *op, int64_t rows, int32_t units, int32_t depth,
                                          float act_min, float act_max) {
    if (!constant_weights(plan, op) || rows <= 0 || units <= 0 || depth <= 0) return RL_OK;
    rl_qd8_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    proto.m = (size_t)rows;
    proto.n = (size_t)units;
    proto.kc = (size_t)depth;
    proto.ks = 1;
    proto.direct = 1;
    proto.rows = proto.m;
    proto.row_length = proto.kc;
    proto.params = (rl_f32_minmax_params){.min = act_min, .max = act_max};
    const rl_status s = build_qd8_state(plan, op, &proto);
    offer_fused_rows(plan, op, &proto);
    if (s == RL_OK) share_quantized_rows(plan, op);
    return s;
}

rl_status rl_use_qd8_gemm_batch_matmul(rl_plan *plan, rl_op *op, int32_t m, int32_t k, int32_t n) {
    const rl_tensor *x = rl_input(plan, op, 0), *y = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    /* One y for every product (the batches are x's), x's rows in place (not transposed). */
    if (!constant_weights(plan, op) || p->adj_x || m <= 0 || k <= 0 || n <= 0) return RL_OK;
    const int64_t rows = rl_shape_count(&output->shape) / n;
    if (rl_shape_count(&y->shape) != (int64_t)k * n || rl_shape_count(&x->shape) != rows * k) return RL_OK;
    rl_qd8_gemm_state proto;
    memset(&proto, 0, sizeof proto);
    proto.m = (size_t)rows;
    proto.n = (size_t)n;
    proto.kc = (size_t)k;
    proto.ks = 1;
    proto.direct = 1;
    proto.y_is_kn = !p->adj_y;
    proto.rows = proto.m;
    proto.row_length = proto.kc;
    /* The reference's (float)acc * row scale * y's scale: the epilogue's fused add of a zero bias rounds the
     * product once, as the multiply does; no clamp. */
    proto.params = (rl_f32_minmax_params){.min = -INFINITY, .max = INFINITY};
    const rl_status s = build_qd8_state(plan, op, &proto);
    offer_fused_rows(plan, op, &proto);
    if (s == RL_OK) share_quantized_rows(plan, op);
    return s;
}
