/* batch_matmul_gemm.c — float32 BATCH_MATMUL on the GEMM micro-kernels (gemm.h), every shape: batch dims
 * broadcast numpy's way, adj_x and adj_y, y constant or not. See batch_matmul_gemm.h.
 *
 * Each distinct y matrix (y's own batches, not the output's: a y broadcast over batches is one) is packed
 * into the kernels' panels once: at prepare when y is constant, else at every invoke into arena scratch,
 * all of them in one parallel pass before the products (adj_y's transposing packer is the ISA's). An x
 * with adj_x is stored [k][m]; its distinct matrices are transposed to [m][k] rows in arena scratch the
 * same way. The products then run as tiles of
 * (batch, block of rows, run of column panels) over the thread pool, so that attention's many small
 * per-head products still give every thread work. Each output element is one micro-kernel sum over k,
 * ascending, whatever the tile: the results do not depend on the thread count.
 *
 * A product of one row whose y changes at every invoke (a decoder's attention over its KV cache: q [1, d]
 * times k^T [d, seq]) packs nothing: the row-times-matrix kernel (rowdot.h) reads y's [k][n] rows in place,
 * where packing would copy all of y to use it once. */
#include <float.h>
#include <string.h>

#include "bands.h"
#include "batch_matmul_gemm.h"
#include "conv_gemm.h"
#include "f32_configs.h"

typedef struct {
    size_t m, k, n;
    size_t x_rows; /* m of one x matrix (m is the rows of one product, batches folded into it or not) */
    /* Products: the output's batches (one when a single y serves every x row: the batches then fold into
     * the rows of one GEMM, m rows each). x_count and y_count: the distinct x and y matrices. */
    size_t batches, x_count, y_count;
    int64_t out_dims[8], x_strides[8], y_strides[8]; /* rl_broadcast's, in matrices; 0 on broadcast axes */
    int32_t adj_x, adj_y;
    int32_t pack_each_run;  /* y is not a constant: packed at every invoke into arena scratch */
    size_t packed_y_floats; /* one packed y matrix, every panel */
    size_t panel_floats;    /* one whole panel: nr * (1 + k) */
    size_t transposed_x_offset; /* in the arena scratch, after the packed y matrices */
    /* The split across threads, chosen at prepare: row_tile rows (a multiple of mr; row_tiles of them per
     * batch) by column_tile columns (a multiple of nr). */
    size_t row_tile, row_tiles, column_tile;
    /* pack_in_tiles: y changes at every invoke, each product has its own (y_count == batches), and packing them
     * all is too little work to split while the products split: each tile packs the panels it reads and
     * multiplies all of its product's rows by them, pack_column_tile columns (a multiple of nr) at a time. */
    int32_t pack_in_tiles;
    size_t pack_column_tile;
    /* band_packs_whole: in bands (bands.h), every y is packed into the arena scratch before them (begin_rows),
     * not by each band on its stack: a y too deep for the stack's panels (P.V's V, k = tokens), or one that many
     * cache-sized bands of a head would each pack again. */
    int32_t band_packs_whole;
    size_t mr, nr;
    rl_f32_gemm_config f32;
    rl_f32_minmax_params params;
    rl_x32_transpose_2d_fn transpose_2d; /* x's, with adj_x */
    rl_f32_vecmat_fn vecmat; /* set: one-row products on y in place, nothing packed (see the top) */
    float *packed; /* y_count packed matrices: in the state when y is constant, else in arena scratch */
    /* Set at every invoke. */
    const float *x, *y;
    float *rows; /* x's matrices as [m][k] rows: x itself, or its transposes in arena scratch */
    float *out;
} rl_batch_matmul_state;

RL_STATIC_ASSERT(sizeof(rl_batch_matmul_state) <= 512, "rl_batch_matmul_state stays a small header");

/* The panel from column n0 of a y [k][n] (adj_y 0): whole rows of the panel are runs of y's rows. */
static void pack_panel_kn(const rl_batch_matmul_state *st, const float *y, size_t n0, float *panel) {
    const size_t cols = st->n - n0 < st->nr ? st->n - n0 : st->nr;
    const size_t width = rl_f32_gemm_panel_width(st->n, n0, st->nr);
    memset(panel, 0, width * sizeof(float)); /* no bias */
    float *to = panel + width;
    const float *from = y + n0;
    /* Full panels of the NEON (8) and x86 (16) tiles: a copy of constant size, which the compiler inlines as two
     * or four vector moves; a memcpy call per k row of 8 floats cost more than the copy (Arm instruction counts:
     * about a tenth of a seq-64 attention product). */
    if (cols == 8 && width == 8) {
        for (size_t kk = 0; kk < st->k; ++kk, to += 8, from += st->n) memcpy(to, from, 8 * sizeof(float));
        return;
    }
    if (cols == 16 && width == 16) {
        for (size_t kk = 0; kk < st->k; ++kk, to += 16, from += st->n) memcpy(to, from, 16 * sizeof(float));
        return;
    }
    for (size_t kk = 0; kk < st->k; ++kk, to += width, from += st->n) {
        memcpy(to, from, cols * sizeof(float));
        for (size_t j = cols; j < width; ++j) to[j] = 0.0f;
    }
}

/* Panels j .. j + count - 1 (columns of y from j * nr) of y matrix `y` into `to`. */
static void pack_panels_to(const rl_batch_matmul_state *st, const float *y, size_t j, size_t count, size_t columns,
                           float *to) {
    if (st->adj_y) { /* [n][k]: columns j * nr .. of y are its rows from there on */
        st->f32.packw_goi(columns, st->k, st->nr, y + j * st->nr * st->k, to);
        return;
    }
    for (size_t p = 0; p < count; ++p) pack_panel_kn(st, y, (j + p) * st->nr, to + p * st->panel_floats);
}

/* Panels j .. j + count - 1 of y matrix i. */
static void pack_y_panels(void *context, size_t i, size_t j, size_t one, size_t count) {
    (void)one;
    const rl_batch_matmul_state *st = (const rl_batch_matmul_state *)context;
    const float *y = st->y + i * st->k * st->n;
    float *packed = st->packed + i * st->packed_y_floats;
    if (st->adj_y) { /* [n][k]: columns j * nr .. of y are its rows from there on, packed as a whole */
        const size_t end = (j + count) * st->nr < st->n ? (j + count) * st->nr : st->n;
        st->f32.packw_goi(end - j * st->nr, st->k, st->nr, y + j * st->nr * st->k, packed + j * st->panel_floats);
        return;
    }
    for (size_t p = j; p < j + count; ++p) pack_panel_kn(st, y, p * st->nr, packed + p * st->panel_floats);
}

/* Rows i0 .. i0 + count - 1 of x matrix i's transpose ([k][m] -> [m][k]), TRANSPOSE's tiled copy. */
static void transpose_x_rows(void *context, size_t i, size_t i0, size_t one, size_t count) {
    (void)one;
    const rl_batch_matmul_state *st = (const rl_batch_matmul_state *)context;
    const size_t m = st->x_rows, k = st->k;
    st->transpose_2d((int64_t)count, (int64_t)k, (int64_t)m, (int64_t)k, st->x + i * m * k + i0,
                     st->rows + i * m * k + i0 * k);
}

/* Which x and y matrices output batch b multiplies. */
static void batch_operands(const rl_batch_matmul_state *st, size_t b, size_t *xi, size_t *yi) {
    int64_t rest = (int64_t)b, x_at = 0, y_at = 0;
    for (int d = 7; d >= 0 && rest > 0; --d) {
        const int64_t index = rest % st->out_dims[d];
        rest /= st->out_dims[d];
        x_at += index * st->x_strides[d];
        y_at += index * st->y_strides[d];
    }
    *xi = (size_t)x_at;
    *yi = (size_t)y_at;
}

/* Tile t (batch t / row_tiles, its row block t % row_tiles), columns j .. j + columns - 1. */
static void product_tile(void *context, size_t t, size_t j, size_t one, size_t columns) {
    (void)one;
    const rl_batch_matmul_state *st = (const rl_batch_matmul_state *)context;
    const size_t b = t / st->row_tiles, first = t % st->row_tiles * st->row_tile;
    const size_t last = first + st->row_tile < st->m ? first + st->row_tile : st->m;
    size_t xi, yi;
    batch_operands(st, b, &xi, &yi);
    const float *a = st->rows + xi * st->m * st->k;
    const float *w = st->packed + yi * st->packed_y_floats + j / st->nr * st->panel_floats;
    float *c = st->out + b * st->m * st->n + j;
    for (size_t r = first; r < last; r += st->mr) {
        const size_t mr = last - r < st->mr ? last - r : st->mr;
        st->f32.gemm(mr, columns, st->k, a + r * st->k, st->k, w, c + r * st->n, st->n, &st->params);
    }
}

/* Output batch b's columns j .. j + columns - 1, every row, after packing the panels of b's y that they read
 * (pack_in_tiles): attention's per-head K or V at a short sequence, packed by the tiles that use it in the
 * products' one parallel pass instead of by the caller alone before it. The same panels and kernel calls per
 * output element as packing first, so the same bits. */
static void pack_and_product_tile(void *context, size_t b, size_t j, size_t one, size_t columns) {
    (void)one;
    const rl_batch_matmul_state *st = (const rl_batch_matmul_state *)context;
    size_t xi, yi;
    batch_operands(st, b, &xi, &yi);
    pack_y_panels(context, yi, j / st->nr, 1, (columns + st->nr - 1) / st->nr);
    const float *a = st->rows + xi * st->m * st->k;
    const float *w = st->packed + yi * st->packed_y_floats + j / st->nr * st->panel_floats;
    float *c = st->out + b * st->m * st->n + j;
    for (size_t r = 0; r < st->m; r += st->mr) {
        const size_t mr = st->m - r < st->mr ? st->m - r : st->mr;
        st->f32.gemm(mr, columns, st->k, a + r * st->k, st->k, w, c + r * st->n, st->n, &st->params);
    }
}

/* Output batch b's columns j .. j + columns - 1 from y in place: one row of x times y's [k][n] rows. */
static void vecmat_tile(void *context, size_t b, size_t j, size_t one, size_t columns) {
    (void)one;
    const rl_batch_matmul_state *st = (const rl_batch_matmul_state *)context;
    size_t xi, yi;
    batch_operands(st, b, &xi, &yi);
    st->vecmat(st->k, columns, st->x + xi * st->k, st->y + yi * st->k * st->n + j, st->n, st->out + b * st->n + j);
}

static rl_status run_batch_matmul(rl_plan *plan, rl_op *op) {
    rl_batch_matmul_state *st = (rl_batch_matmul_state *)op->state;
    st->x = (const float *)rl_input(plan, op, 0)->data;
    st->y = (const float *)rl_input(plan, op, 1)->data;
    st->out = (float *)rl_output(plan, op, 0)->data;
    st->rows = (float *)st->x;
    if (st->vecmat) {
        rl_parallelize_2d_tile_2d(rl_pool_for(plan, st->batches * st->n * st->k), vecmat_tile, st, st->batches,
                                  st->n, 1, st->column_tile);
        return RL_OK;
    }
    const size_t panels = (st->n + st->nr - 1) / st->nr;
    if (st->pack_in_tiles) {
        st->packed = (float *)op->arena_scratch;
        rl_parallelize_2d_tile_2d(plan->pool, pack_and_product_tile, st, st->batches, st->n, 1, st->pack_column_tile);
        return RL_OK;
    }
    if (st->pack_each_run) {
        st->packed = (float *)op->arena_scratch;
        /* Whole matrices per tile, or one matrix's panels in RL_TILES_PER_THREAD runs. */
        const size_t run = st->y_count > 1 ? panels : (panels + RL_TILES_PER_THREAD - 1) / RL_TILES_PER_THREAD;
        rl_parallelize_2d_tile_2d(rl_pool_for(plan, st->y_count * st->k * st->n), pack_y_panels, st, st->y_count,
                                  panels, 1, run);
    }
    if (st->adj_x) {
        st->rows = (float *)((char *)op->arena_scratch + st->transposed_x_offset);
        const size_t run = st->x_count > 1 ? st->x_rows : (st->x_rows + RL_TILES_PER_THREAD - 1) / RL_TILES_PER_THREAD;
        rl_parallelize_2d_tile_2d(rl_pool_for(plan, st->x_count * st->x_rows * st->k), transpose_x_rows, st,
                                  st->x_count, st->x_rows, 1, run);
    }
    rl_parallelize_2d_tile_2d(rl_pool_for(plan, st->batches * st->m * st->n * st->k), product_tile, st,
                              st->batches * st->row_tiles, st->n, 1, st->column_tile);
    return RL_OK;
}

/* Banded execution (bands.h) of products that each have their own y, packed at every invoke (attention's
 * Q.K^T and P.V per head): output rows [first, first + count) of every product in turn (pixel p is row p % m of
 * product p / m), so the scale, mask and SOFTMAX after the scores, and P.V after them, run on in the same band.
 * Each product's y is packed by the band a few panels at a time on the stack and multiplied into the band's rows
 * there (a head that two bands share is packed by both), or, band_packs_whole, packed whole before the bands and
 * multiplied by all its panels at a time from there (as the op's own run does). Either way the same panels and
 * kernel calls per output element as the op's own run, so the same bits. */
enum { BAND_PACK_FLOATS = 4096 }; /* 16 KB of panels on a band's stack */
/* A band's rows of the scores that stay in cache while the ops after the product read them: 128 KB, an eighth
 * of a Zen 4 core's L2 and a quarter of a Cortex-A76's, beside the head's packed K and V. Products whose output
 * is larger than 32 such bands (4 MB: Whisper's 1500-token scores are 54 MB, ViT's 0.5 MB) keep their bands to
 * it, so the scores never go out to memory and back. */
#define BAND_CACHE_BYTES ((size_t)128 << 10)

static void begin_batch_matmul_rows(rl_plan *plan, rl_op *op) {
    rl_batch_matmul_state *st = (rl_batch_matmul_state *)op->state;
    st->x = st->rows = (float *)rl_input(plan, op, 0)->data;
    st->y = (const float *)rl_input(plan, op, 1)->data;
    st->out = (float *)rl_output(plan, op, 0)->data;
    if (st->band_packs_whole) { /* y is complete: no op of the segment writes it (band_whole_inputs) */
        const size_t panels = (st->n + st->nr - 1) / st->nr;
        const size_t run = st->y_count > 1 ? panels : (panels + RL_TILES_PER_THREAD - 1) / RL_TILES_PER_THREAD;
        st->packed = (float *)op->arena_scratch;
        rl_parallelize_2d_tile_2d(rl_pool_for(plan, st->y_count * st->k * st->n), pack_y_panels, st, st->y_count,
                                  panels, 1, run);
    }
}

static void run_batch_matmul_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    const rl_batch_matmul_state *st = (const rl_batch_matmul_state *)op->state;
    float stack_panels[BAND_PACK_FLOATS];
    const size_t all = (st->n + st->nr - 1) / st->nr;
    const size_t chunk = st->band_packs_whole ? all : BAND_PACK_FLOATS / st->panel_floats;
    for (size_t p = first; p < first + count;) {
        const size_t b = p / st->m, r0 = p % st->m, r1 = first + count - b * st->m < st->m ? first + count - b * st->m
                                                                                             : st->m;
        size_t xi, yi;
        batch_operands(st, b, &xi, &yi);
        const float *a = st->rows + xi * st->m * st->k;
        float *c = st->out + b * st->m * st->n;
        for (size_t j = 0; j < all; j += chunk) {
            const size_t count_panels = all - j < chunk ? all - j : chunk;
            const size_t columns = (j + count_panels) * st->nr < st->n ? count_panels * st->nr : st->n - j * st->nr;
            const float *panels = stack_panels;
            if (st->band_packs_whole)
                panels = st->packed + yi * st->packed_y_floats + j * st->panel_floats;
            else
                pack_panels_to(st, st->y + yi * st->k * st->n, j, count_panels, columns, stack_panels);
            for (size_t r = r0; r < r1; r += st->mr) {
                const size_t mr = r1 - r < st->mr ? r1 - r : st->mr;
                st->f32.gemm(mr, columns, st->k, a + r * st->k, st->k, panels, c + r * st->n + j * st->nr, st->n,
                             &st->params);
            }
        }
        p = b * st->m + r1;
    }
}

/* About RL_TILES_PER_THREAD tiles per thread: whole products when there are that many batches, else each
 * product cut into blocks of rows and, when that is still too few, runs of column panels. */
static void choose_split(rl_batch_matmul_state *st, size_t threads) {
    st->row_tile = st->m;
    st->column_tile = st->n;
    const size_t want = RL_TILES_PER_THREAD * threads;
    if (threads > 1 && st->batches < want) {
        const size_t blocks = (st->m + st->mr - 1) / st->mr, per_batch = (want + st->batches - 1) / st->batches;
        const size_t splits = blocks < per_batch ? blocks : per_batch;
        st->row_tile = st->mr * ((blocks + splits - 1) / splits);
        const size_t tiles = st->batches * ((st->m + st->row_tile - 1) / st->row_tile);
        if (tiles < want) {
            const size_t panels = (st->n + st->nr - 1) / st->nr, per_tile = (want + tiles - 1) / tiles;
            const size_t cuts = panels < per_tile ? panels : per_tile;
            st->column_tile = st->nr * ((panels + cuts - 1) / cuts);
        }
    }
    st->row_tiles = (st->m + st->row_tile - 1) / st->row_tile;
}

rl_status rl_use_gemm_batch_matmul(rl_plan *plan, rl_op *op, int32_t m, int32_t k, int32_t n) {
    const rl_tensor *x = rl_input(plan, op, 0), *y = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    const rl_broadcast *bc = &op->prep.bc;
    if (x->dtype != RL_FLOAT32 || y->dtype != RL_FLOAT32 || output->dtype != RL_FLOAT32) return RL_OK;
    if (m <= 0 || k <= 0 || n <= 0 || bc->count <= 0) return RL_OK; /* nothing to compute: the reference */
    rl_batch_matmul_state proto;
    memset(&proto, 0, sizeof proto);
    proto.m = proto.x_rows = (size_t)m;
    proto.k = (size_t)k;
    proto.n = (size_t)n;
    proto.batches = (size_t)bc->count;
    proto.x_count = (size_t)(rl_shape_count(&x->shape) / ((int64_t)m * k));
    proto.y_count = (size_t)(rl_shape_count(&y->shape) / ((int64_t)k * n));
    memcpy(proto.out_dims, bc->out_dims, sizeof proto.out_dims);
    memcpy(proto.x_strides, bc->a_strides, sizeof proto.x_strides);
    memcpy(proto.y_strides, bc->b_strides, sizeof proto.y_strides);
    if (proto.y_count == 1 && proto.x_count == proto.batches) {
        /* One y for all of x's matrices, which lie one after the other (transposed, in scratch, as well): one
         * GEMM over all their rows, as tall as the batches together. */
        proto.m *= proto.batches;
        proto.batches = 1;
        memset(proto.x_strides, 0, sizeof proto.x_strides);
        memset(proto.y_strides, 0, sizeof proto.y_strides);
    }
    proto.adj_x = p->adj_x;
    proto.adj_y = p->adj_y;
    proto.pack_each_run = rl_known_data(y) == NULL;
    proto.f32 = proto.n >= RL_F32_GEMM_WIDE_MIN_COLUMNS ? plan->kernels->f32_gemm_wide : plan->kernels->f32_gemm;
    proto.transpose_2d = plan->kernels->x32_transpose_2d;
    proto.mr = proto.f32.mr;
    proto.nr = proto.f32.nr;
    proto.params = (rl_f32_minmax_params){.min = -FLT_MAX, .max = FLT_MAX};
    proto.packed_y_floats = rl_f32_gemm_packed_size(proto.n, 1, proto.k, proto.nr) / sizeof(float);
    proto.panel_floats = proto.nr * (1 + proto.k);
    choose_split(&proto, (size_t)rl_threadpool_threads(plan->pool));
    if (proto.pack_each_run && m == 1 && !proto.adj_x && !proto.adj_y && proto.batches == (size_t)bc->count) {
        /* One row per product (batches not folded into the rows of one GEMM): y is read in place. */
        proto.vecmat = plan->kernels->f32_rowdot.vecmat;
    }
    /* Products that split but whose y packing would not (below RL_PARALLEL_MIN_MACS: BERT-tiny's heads, seq 64
     * by 64 wide) pack in their tiles, one tile per run of about want / batches column panels. */
    const size_t threads = (size_t)rl_threadpool_threads(plan->pool);
    const size_t panels = (proto.n + proto.nr - 1) / proto.nr;
    if (proto.pack_each_run && !proto.adj_x && proto.y_count == proto.batches && !proto.vecmat &&
        !rl_pool_for(plan, proto.y_count * proto.k * proto.n) &&
        rl_pool_for(plan, proto.batches * proto.m * proto.n * proto.k) && proto.batches * panels >= 2 * threads) {
        const size_t want = RL_TILES_PER_THREAD * threads, runs = (want + proto.batches - 1) / proto.batches;
        const size_t cuts = runs < panels ? runs : panels;
        proto.pack_in_tiles = 1;
        proto.pack_column_tile = proto.nr * ((panels + cuts - 1) / cuts);
    }
    const size_t packed_bytes = proto.y_count * proto.packed_y_floats * sizeof(float);
    if (!proto.vecmat && (proto.pack_each_run || proto.adj_x)) {
        proto.transposed_x_offset = proto.pack_each_run ? (packed_bytes + 63) / 64 * 64 : 0;
        rl_request_arena_scratch(op, proto.transposed_x_offset +
                                         (proto.adj_x ? proto.x_count * (size_t)m * (size_t)k * sizeof(float) : 0));
    }
    const size_t kept = proto.pack_each_run ? 0 : packed_bytes;
    const size_t sizes[2] = {sizeof(rl_batch_matmul_state), kept};
    void *parts[2];
    rl_batch_matmul_state *st = (rl_batch_matmul_state *)rl_op_state_parts(plan, op, 2, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    *st = proto;
    op->packed_weight_bytes = kept;
    op->packed_inputs = 0;
    if (!st->pack_each_run) { /* once, here: y's bytes are never read again */
        st->packed = (float *)parts[1];
        st->y = (const float *)rl_known_data(y);
        for (size_t i = 0; i < st->y_count; ++i) pack_y_panels(st, i, 0, 1, (st->n + st->nr - 1) / st->nr);
        op->packed_inputs = 1u << 1;
    }
    op->run = run_batch_matmul;
    /* Bands over the products' rows: y read whole (no op of the segment may write it), x by rows. */
    if (st->pack_each_run && !st->adj_x && !st->vecmat && st->y_count == st->batches && st->batches > 0 &&
        x->shape.rank >= 2 && x->shape.dims[x->shape.rank - 1] == k && output->shape.rank >= 2 &&
        output->shape.dims[output->shape.rank - 1] == n &&
        rl_shape_count(&x->shape) == (int64_t)(st->batches * st->m * st->k)) {
        rl_offer_pixel_rows(op, output, run_batch_matmul_rows);
        op->begin_rows = begin_batch_matmul_rows;
        op->band_whole_inputs = 2u;
        const size_t row_bytes = st->n * sizeof(float);
        if (st->batches * st->m * row_bytes > 32 * BAND_CACHE_BYTES) {
            const size_t rows = BAND_CACHE_BYTES / row_bytes / st->mr * st->mr;
            op->band_cache_pixels = rows > st->mr ? rows : st->mr;
        }
        /* Packed on the band's stack where a few panels fit there and each band packs a head's y about once. */
        st->band_packs_whole = st->panel_floats > BAND_PACK_FLOATS || op->band_cache_pixels;
        op->band_reads_scratch = st->band_packs_whole;
        op->band_no_scratch = !st->band_packs_whole;
    }
    return RL_OK;
}
