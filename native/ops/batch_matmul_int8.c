/* batch_matmul_int8.c — int8 BATCH_MATMUL with any zero point on either operand (attention's two
 * activations, or a constant y), in the arithmetic LiteRT's default Interpreter uses for each form
 * (s8_batch_matmul_ref.c, the specification):
 * - y's zero point 0 (XNNPACK's form, float requantization): the int8 GEMM micro-kernels, y packed into their
 *   panels with x's zero point folded into each column's bias.
 * - otherwise (TFLite's fixed-point form): the sums of (x - zx) * (y - zy) must reach the requantization as
 *   int32, which the int8 kernels do not hand out. They are computed exactly on the float GEMM instead, in
 *   chunks of the depth short enough that no float sum can round (below), then requantized in fixed point.
 * A constant y is packed at prepare; an activation y (and x where it must be converted or transposed) at every
 * invoke into the op's arena scratch. Threads split output tiles (a batch's block of rows by a block of
 * columns); each output's value does not depend on the tile, so results do not depend on the thread count.
 * TFLite's 16x8 form (int16 x): batch_matmul_int16.c.
 */
#include <string.h>

#include "bands.h"
#include "ops.h"
#include "plan_internal.h"

typedef struct {
    rl_s8_batch_matmul_params p;
    size_t m, k, n;
    size_t x_batches, y_batches, batches; /* x's and y's own batch counts; the output's */
    int32_t adj_x, adj_y;
    /* y's zero point 0: XNNPACK's arithmetic, the int8 GEMM micro-kernels on y packed into panels. */
    rl_qs8_gemm_config qs8;
    rl_qs8_requantization_params qs8_params;
    size_t panel_bytes, packed_bytes; /* one nr-wide panel; one batch of y packed */
    const void *packed;               /* a constant y's panels, [y_batches], or NULL */
    size_t packed_at;
    const void *packed_now;
    /* y's zero point not 0: exact integer sums on the float GEMM in depth chunks (see the file's comment). */
    rl_f32_gemm_config f32;
    rl_s32_s8_requantize_fn requantize;
    size_t chunk_floats, f32_packed_floats; /* one full chunk of y packed; one batch of y, every chunk */
    const float *f32_packed;                /* a constant y's panels, or NULL */
    size_t xf_at, f32_packed_at;
    const float *xf_now, *f32_packed_now;
    const int64_t *x_batch_of, *y_batch_of; /* for each output batch, which batch of x and of y it reads */
    size_t x_rows_at; /* x's transpose under adj_x (the int8 GEMM), in the arena scratch */
    /* Set at every invoke. */
    const int8_t *x_rows_now;
    const int8_t *x_now, *y_now; /* bands of the exact form (begin_exact_f32_rows) */
    int8_t *out;
} rl_s8_batch_matmul_state;

static size_t aligned64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* rows x cols int8 at src (row-major) into dst as cols x rows. */
static void transpose_s8(size_t rows, size_t cols, const int8_t *src, int8_t *dst) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
}

enum { MAX_GEMM_NR = 16 }; /* the widest qs8 GEMM panel of any config */

/* One batch of y into the int8 GEMM's panels (gemm.h, as rl_pack_qs8_gemm lays them out), straight from y's
 * layout: element (column j, depth q) at y[j * column_stride + q * depth_stride] ([n][k] under adj_y, else
 * [k][n], read row by row without a transpose). Columns' biases are -(x_zero_point + input_offset) * sum(column)
 * modulo 2^32, every scale the one scale. Packed at every invoke for an activation y: the loops carry no
 * per-byte bounds tests except at a panel's or the depth's end. */
static void pack_y_panels(size_t n, size_t k, size_t nr, size_t kr, uint32_t zero_point, float scale, const int8_t *y,
                          size_t column_stride, size_t depth_stride, unsigned char *out) {
    for (size_t n0 = 0; n0 < n; n0 += nr) {
        const size_t width = rl_qs8_gemm_panel_width(n, n0, nr), columns = n - n0 < width ? n - n0 : width;
        int32_t sums[MAX_GEMM_NR] = {0};
        unsigned char *biases = out;
        out += width * sizeof(int32_t);
        for (size_t q0 = 0; q0 < k; q0 += kr) {
            const size_t depth = k - q0 < kr ? k - q0 : kr;
            if (depth < kr || columns < width) memset(out, 0, width * kr);
            if (depth_stride == 1) { /* [n][k]: each column's kr bytes are contiguous */
                const int8_t *src = y + n0 * column_stride + q0;
                if (depth == 4 && kr == 4) /* a constant-size copy is one move, not a libc call per column */
                    for (size_t j = 0; j < columns; ++j) memcpy(out + j * 4, src + j * column_stride, 4);
                else if (depth == 2 && kr == 2)
                    for (size_t j = 0; j < columns; ++j) memcpy(out + j * 2, src + j * column_stride, 2);
                else
                    for (size_t j = 0; j < columns; ++j)
                        for (size_t r = 0; r < depth; ++r) out[j * kr + r] = (unsigned char)src[j * column_stride + r];
                out += width * kr;
                continue;
            }
            for (size_t r = 0; r < depth; ++r) {
                const int8_t *src = y + n0 * column_stride + (q0 + r) * depth_stride;
                for (size_t j = 0; j < columns; ++j) {
                    const int8_t v = src[j * column_stride];
                    out[j * kr + r] = (unsigned char)v;
                    sums[j] += v;
                }
            }
            out += width * kr;
        }
        if (depth_stride == 1)
            for (size_t j = 0; j < columns; ++j) {
                const int8_t *column = y + (n0 + j) * column_stride;
                for (size_t q = 0; q < k; ++q) sums[j] += column[q];
            }
        for (size_t j = 0; j < width; ++j) {
            const uint32_t bias = j < columns ? 0u - zero_point * (uint32_t)sums[j] : 0u;
            memcpy(biases + j * sizeof bias, &bias, sizeof bias);
        }
        for (size_t j = 0; j < width; ++j) {
            const float s = j < columns ? scale : 0.0f;
            memcpy(out + j * sizeof s, &s, sizeof s);
        }
        out += width * sizeof(float);
    }
}

/* GEMM tile: batch b's rows [r0, r0 + mr * ...) (tile index t = b * row_blocks + block, blocks of
 * mr * GEMM_ROW_BLOCKS rows) by columns [j, j + count), j a multiple of nr. */
enum { GEMM_ROW_BLOCKS = 4 }; /* rows per tile: this many of the kernel's mr */
static void batch_matmul_gemm_tile(void *context, size_t t, size_t j, size_t tiles, size_t count) {
    const rl_s8_batch_matmul_state *st = (const rl_s8_batch_matmul_state *)context;
    (void)tiles;
    const size_t tile_rows = st->qs8.mr * GEMM_ROW_BLOCKS, row_blocks = (st->m + tile_rows - 1) / tile_rows;
    const size_t b = t / row_blocks, i0 = t % row_blocks * tile_rows;
    const size_t end = st->m - i0 < tile_rows ? st->m : i0 + tile_rows;
    const size_t xb = (size_t)st->x_batch_of[b], yb = (size_t)st->y_batch_of[b];
    const char *w = (const char *)st->packed_now + yb * st->packed_bytes + j / st->qs8.nr * st->panel_bytes;
    for (size_t r = i0; r < end; r += st->qs8.mr) {
        const size_t mr = end - r < st->qs8.mr ? end - r : st->qs8.mr;
        st->qs8.gemm(mr, count, st->k, st->x_rows_now + (xb * st->m + r) * st->k, st->k, w,
                     st->out + (b * st->m + r) * st->n + j, st->n, &st->qs8_params);
    }
}

/* ---- y's zero point not 0: exact integer sums on the float GEMM ----
 * (x - zx) and (y - zy) are integers of at most 255 in magnitude, so a sum of up to DEPTH_CHUNK of their
 * products stays below 2^24 in magnitude at every step, in any order: float adds and fused multiply-adds are
 * exact there, whatever the kernel's lanes and ISA. The float GEMM sums each chunk of the depth exactly, and the
 * chunks are added as int32 (modulo 2^32, as TFLite's accumulator). */
/* DEPTH_CHUNK: 256 * 255 * 255 < 2^24. A tile's two buffers, 32 KiB, live on the stack of whichever thread runs it. */
enum { DEPTH_CHUNK = 256, F32_TILE_ROWS = 32, F32_TILE_COLUMNS = 128 };

/* One batch of y - zy into the float GEMM's panels (gemm.h), chunk by chunk of the depth. */
static void pack_y_f32(size_t n, size_t k, size_t nr, size_t chunk_floats, float zy, const int8_t *y,
                       size_t column_stride, size_t depth_stride, float *out) {
    for (size_t q0 = 0; q0 < k; q0 += DEPTH_CHUNK) {
        const size_t len = k - q0 < DEPTH_CHUNK ? k - q0 : DEPTH_CHUNK;
        float *panel = out + q0 / DEPTH_CHUNK * chunk_floats;
        for (size_t n0 = 0; n0 < n; n0 += nr) {
            const size_t width = rl_f32_gemm_panel_width(n, n0, nr), columns = n - n0 < width ? n - n0 : width;
            memset(panel, 0, (columns < width ? width * (1 + len) : width) * sizeof(float)); /* biases 0 */
            float *w = panel + width;
            if (depth_stride == 1) { /* [n][k]: a column's depth is contiguous */
                for (size_t j = 0; j < columns; ++j) {
                    const int8_t *src = y + (n0 + j) * column_stride + q0;
                    for (size_t q = 0; q < len; ++q) w[q * width + j] = (float)src[q] - zy;
                }
            } else {
                for (size_t q = 0; q < len; ++q) {
                    const int8_t *src = y + (q0 + q) * depth_stride + n0;
                    for (size_t j = 0; j < columns; ++j) w[q * width + j] = (float)src[j] - zy;
                }
            }
            panel += width * (1 + len);
        }
    }
}

/* Float GEMM tile: batch b's rows [i0, i0 + mr * GEMM_ROW_BLOCKS) by columns [j, j + count), j a multiple of nr. */
static void batch_matmul_f32_tile(void *context, size_t t, size_t j, size_t tiles, size_t count) {
    const rl_s8_batch_matmul_state *st = (const rl_s8_batch_matmul_state *)context;
    (void)tiles;
    const size_t mr = st->f32.mr, nr = st->f32.nr, k = st->k;
    const size_t tile_rows = mr * GEMM_ROW_BLOCKS, row_blocks = (st->m + tile_rows - 1) / tile_rows;
    const size_t b = t / row_blocks, i0 = t % row_blocks * tile_rows;
    const size_t rows = st->m - i0 < tile_rows ? st->m - i0 : tile_rows;
    const size_t xb = (size_t)st->x_batch_of[b], yb = (size_t)st->y_batch_of[b];
    const float *x = st->xf_now + (xb * st->m + i0) * k;
    const float *y = st->f32_packed_now + yb * st->f32_packed_floats;
    const rl_f32_minmax_params unbounded = {-3.40282347e38f, 3.40282347e38f};
    float sums[F32_TILE_ROWS * F32_TILE_COLUMNS];
    int32_t total[F32_TILE_ROWS * F32_TILE_COLUMNS];
    for (size_t q0 = 0; q0 < k; q0 += DEPTH_CHUNK) {
        const size_t len = k - q0 < DEPTH_CHUNK ? k - q0 : DEPTH_CHUNK;
        const float *w = y + q0 / DEPTH_CHUNK * st->chunk_floats + j / nr * nr * (1 + len);
        for (size_t r = 0; r < rows; r += mr)
            st->f32.gemm(rows - r < mr ? rows - r : mr, count, len, x + r * k + q0, k, w, sums + r * F32_TILE_COLUMNS,
                         F32_TILE_COLUMNS, &unbounded);
        for (size_t i = 0; i < rows; ++i) {
            const float *from = sums + i * F32_TILE_COLUMNS;
            int32_t *to = total + i * F32_TILE_COLUMNS;
            if (q0 == 0)
                for (size_t c = 0; c < count; ++c) to[c] = (int32_t)from[c]; /* exact integers */
            else
                for (size_t c = 0; c < count; ++c) to[c] = (int32_t)((uint32_t)to[c] + (uint32_t)(int32_t)from[c]);
        }
    }
    int8_t *out = st->out + (b * st->m + i0) * st->n + j;
    for (size_t i = 0; i < rows; ++i)
        st->requantize(count, total + i * F32_TILE_COLUMNS, st->p.multiplier, st->p.shift, st->p.output_zero_point,
                       st->p.output_min, st->p.output_max, out + i * st->n);
}

static void run_exact_f32(rl_plan *plan, rl_s8_batch_matmul_state *st, const int8_t *x, const int8_t *y, char *scratch) {
    const size_t m = st->m, k = st->k, n = st->n;
    float *xf = (float *)(scratch + st->xf_at);
    const float zx = (float)st->p.x_zero_point;
    for (size_t b = 0; b < st->x_batches; ++b) {
        const int8_t *src = x + b * m * k;
        float *dst = xf + b * m * k;
        if (st->adj_x)
            for (size_t q = 0; q < k; ++q)
                for (size_t i = 0; i < m; ++i) dst[i * k + q] = (float)src[q * m + i] - zx;
        else
            for (size_t e = 0; e < m * k; ++e) dst[e] = (float)src[e] - zx;
    }
    st->xf_now = xf;
    if (st->f32_packed) {
        st->f32_packed_now = st->f32_packed;
    } else {
        float *packed = (float *)(scratch + st->f32_packed_at);
        for (size_t b = 0; b < st->y_batches; ++b)
            pack_y_f32(n, k, st->f32.nr, st->chunk_floats, (float)st->p.y_zero_point, y + b * k * n, st->adj_y ? k : 1,
                       st->adj_y ? 1 : n, packed + b * st->f32_packed_floats);
        st->f32_packed_now = packed;
    }
    const size_t tile_rows = st->f32.mr * GEMM_ROW_BLOCKS, row_blocks = (m + tile_rows - 1) / tile_rows;
    rl_parallelize_2d_tile_2d(plan->pool, batch_matmul_f32_tile, st, st->batches * row_blocks, n, 1, F32_TILE_COLUMNS);
}

static rl_status run_batch_matmul_int8(rl_plan *plan, rl_op *op) {
    rl_s8_batch_matmul_state *st = (rl_s8_batch_matmul_state *)op->state;
    const int8_t *x = (const int8_t *)rl_input(plan, op, 0)->data, *y = (const int8_t *)rl_input(plan, op, 1)->data;
    char *scratch = (char *)op->arena_scratch;
    const size_t m = st->m, k = st->k, n = st->n;
    st->out = (int8_t *)rl_output(plan, op, 0)->data;
    if (st->batches == 0 || m == 0 || n == 0) return RL_OK;
    if (st->p.y_zero_point != 0) {
        run_exact_f32(plan, st, x, y, scratch);
        return RL_OK;
    }
    st->x_rows_now = x;
    if (st->adj_x) {
        int8_t *rows = (int8_t *)(scratch + st->x_rows_at);
        for (size_t b = 0; b < st->x_batches; ++b) transpose_s8(k, m, x + b * m * k, rows + b * m * k);
        st->x_rows_now = rows;
    }
    if (st->packed) {
        st->packed_now = st->packed;
    } else {
        unsigned char *packed = (unsigned char *)scratch + st->packed_at;
        const uint32_t zero_point = (uint32_t)st->p.x_zero_point + (uint32_t)st->qs8.input_offset;
        for (size_t b = 0; b < st->y_batches; ++b)
            pack_y_panels(n, k, st->qs8.nr, st->qs8.kr, zero_point, st->p.scale, y + b * k * n, st->adj_y ? k : 1,
                          st->adj_y ? 1 : n, packed + b * st->packed_bytes);
        st->packed_now = packed;
    }
    const size_t tile_rows = st->qs8.mr * GEMM_ROW_BLOCKS, row_blocks = (m + tile_rows - 1) / tile_rows;
    rl_parallelize_2d_tile_2d(plan->pool, batch_matmul_gemm_tile, st, st->batches * row_blocks, n, 1, n);
    return RL_OK;
}

/* The requantization LiteRT's default Interpreter applies to this form (see rl_s8_batch_matmul_params). */
static rl_status batch_matmul_params(rl_plan *plan, const rl_tensor *x, const rl_tensor *y, const rl_tensor *output,
                                     rl_s8_batch_matmul_params *p) {
    const float sx = rl_tensor_scale(x, 0), sy = rl_tensor_scale(y, 0), so = rl_tensor_scale(output, 0);
    p->x_zero_point = rl_tensor_zero_point(x, 0);
    p->y_zero_point = rl_tensor_zero_point(y, 0);
    p->output_zero_point = rl_tensor_zero_point(output, 0);
    p->output_min = -128;
    p->output_max = 127;
    p->fixed_point = p->y_zero_point != 0;
    if (!p->fixed_point) {
        p->scale = sx * sy / so; /* in float, in XNNPACK's order */
        if (!(p->scale < 256.0f))
            return rl_fail(plan, RL_UNSUPPORTED, "requantization scale %g (x * y / output scale) is 256 or more",
                           (double)p->scale);
        return RL_OK;
    }
    const float product = sx * sy; /* TFLite's GetQuantizedConvolutionMultipler: the product in float */
    if (rl_quantize_multiplier((double)product / (double)so, &p->multiplier, &p->shift))
        return rl_fail(plan, RL_UNSUPPORTED, "requantization scale %g (x * y / output scale) has no fixed-point form",
                       (double)product / (double)so);
    return RL_OK;
}

/* y's zero point 0: y packed into the int8 GEMM's panels (gemm.h) with x's zero point folded into each
 * column's bias; a constant y at prepare, an activation y at every invoke into arena scratch (after x's
 * transpose, at `scratch`). */
static rl_status prepare_gemm(rl_plan *plan, rl_op *op, rl_s8_batch_matmul_state *st, const int8_t *y_known,
                              int y_constant, size_t scratch) {
    const size_t k = st->k, n = st->n;
    st->qs8 = plan->kernels->qs8_gemm;
    st->qs8_params.min_less_zero_point = (float)(st->p.output_min - st->p.output_zero_point);
    st->qs8_params.max_less_zero_point = (float)(st->p.output_max - st->p.output_zero_point);
    st->qs8_params.output_zero_point = st->p.output_zero_point;
    st->qs8_params.input_zero_point = st->p.x_zero_point;
    st->panel_bytes = rl_qs8_gemm_packed_size(st->qs8.nr, 1, k, st->qs8.nr, st->qs8.kr);
    st->packed_bytes = (rl_qs8_gemm_packed_size(n, 1, k, st->qs8.nr, st->qs8.kr) + 63) / 64 * 64;
    if (st->qs8.nr > MAX_GEMM_NR) return rl_fail(plan, RL_UNSUPPORTED, "a %u-column GEMM panel", st->qs8.nr);
    if (y_constant) {
        unsigned char *packed = (unsigned char *)rl_op_scratch(plan, op, st->y_batches * st->packed_bytes);
        if (!packed) return RL_NO_MEMORY;
        const uint32_t zero_point = (uint32_t)st->p.x_zero_point + (uint32_t)st->qs8.input_offset;
        for (size_t b = 0; b < st->y_batches; ++b)
            pack_y_panels(n, k, st->qs8.nr, st->qs8.kr, zero_point, st->p.scale, y_known + b * k * n, st->adj_y ? k : 1,
                          st->adj_y ? 1 : n, packed + b * st->packed_bytes);
        st->packed = packed;
        op->packed_inputs |= 1u << 1;
        op->packed_weight_bytes = st->y_batches * st->packed_bytes;
    } else {
        st->packed_at = scratch;
        scratch += st->y_batches * st->packed_bytes;
    }
    if (scratch) rl_request_arena_scratch(op, scratch);
    if (k > 0) op->run = run_batch_matmul_int8;
    return RL_OK;
}

/* Banded execution (bands.h) of the exact form with an activation y (attention's Q.K^T at TFLite's fixed point):
 * output rows [first, first + count) of every product in turn (pixel p is row p % m of product p / m). Each
 * band packs the panels of its products' y - zy it reads, BAND_COLUMNS_MAX columns at most at a time, and
 * converts its own rows of x - zx, all on its stack, where the op's own run converts all of x and packs all of
 * y on the caller first; the scale and SOFTMAX after it then run on in the same band. The sums are exact
 * integers (one depth chunk: k <= BAND_MAX_DEPTH), so the same bits on any split. */
enum { BAND_PANEL_FLOATS = 4096, BAND_ROWS = 16, BAND_MAX_DEPTH = 128, BAND_COLUMNS_MAX = 128 };

static void begin_exact_f32_rows(rl_plan *plan, rl_op *op) {
    rl_s8_batch_matmul_state *st = (rl_s8_batch_matmul_state *)op->state;
    st->x_now = (const int8_t *)rl_input(plan, op, 0)->data;
    st->y_now = (const int8_t *)rl_input(plan, op, 1)->data;
    st->out = (int8_t *)rl_output(plan, op, 0)->data;
}

static void run_exact_f32_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    const rl_s8_batch_matmul_state *st = (const rl_s8_batch_matmul_state *)op->state;
    const size_t m = st->m, k = st->k, n = st->n, mr = st->f32.mr, nr = st->f32.nr;
    const size_t fit = BAND_PANEL_FLOATS / (nr * (1 + k)) * nr;
    const size_t tile = fit < BAND_COLUMNS_MAX ? fit : BAND_COLUMNS_MAX;
    const rl_f32_minmax_params unbounded = {-3.40282347e38f, 3.40282347e38f};
    const float zx = (float)st->p.x_zero_point, zy = (float)st->p.y_zero_point;
    float w[BAND_PANEL_FLOATS], xf[BAND_ROWS * BAND_MAX_DEPTH], sums[BAND_ROWS * BAND_COLUMNS_MAX];
    int32_t total[BAND_COLUMNS_MAX];
    for (size_t p = first; p < first + count;) {
        const size_t b = p / m, r0 = p % m, r1 = first + count - b * m < m ? first + count - b * m : m;
        const int8_t *x = st->x_now + (size_t)st->x_batch_of[b] * m * k;
        const int8_t *y = st->y_now + (size_t)st->y_batch_of[b] * k * n;
        for (size_t j = 0; j < n; j += tile) {
            const size_t columns = n - j < tile ? n - j : tile;
            pack_y_f32(columns, k, nr, 0, zy, y + j * (st->adj_y ? k : 1), st->adj_y ? k : 1, st->adj_y ? 1 : n, w);
            for (size_t r = r0; r < r1; r += BAND_ROWS) {
                const size_t rows = r1 - r < BAND_ROWS ? r1 - r : BAND_ROWS;
                for (size_t e = 0; e < rows * k; ++e) xf[e] = (float)x[r * k + e] - zx;
                for (size_t i = 0; i < rows; i += mr)
                    st->f32.gemm(rows - i < mr ? rows - i : mr, columns, k, xf + i * k, k, w, sums + i * tile, tile,
                                 &unbounded);
                for (size_t i = 0; i < rows; ++i) {
                    for (size_t c = 0; c < columns; ++c) total[c] = (int32_t)sums[i * tile + c]; /* exact */
                    st->requantize(columns, total, st->p.multiplier, st->p.shift, st->p.output_zero_point,
                                   st->p.output_min, st->p.output_max, st->out + (b * m + r + i) * n + j);
                }
            }
        }
        p = b * m + r1;
    }
}

/* y's zero point not 0: x - zx as floats and y - zy packed into the float GEMM's panels, chunk by chunk; a
 * constant y at prepare, an activation y (and x always) at every invoke into arena scratch. */
static rl_status prepare_exact_f32(rl_plan *plan, rl_op *op, rl_s8_batch_matmul_state *st, const int8_t *y_known,
                                   int y_constant) {
    const size_t k = st->k, n = st->n;
    st->f32 = plan->kernels->f32_gemm;
    st->requantize = plan->kernels->s32_s8_requantize_fixedpoint;
    if (st->f32.mr * GEMM_ROW_BLOCKS > F32_TILE_ROWS || st->f32.nr * 4 > F32_TILE_COLUMNS)
        return rl_fail(plan, RL_UNSUPPORTED, "a %ux%u float GEMM tile is wider than the driver's", st->f32.mr, st->f32.nr);
    const size_t full = k < DEPTH_CHUNK ? k : DEPTH_CHUNK, last = k % DEPTH_CHUNK ? k % DEPTH_CHUNK : full;
    st->chunk_floats = rl_f32_gemm_packed_size(n, 1, full, st->f32.nr) / sizeof(float);
    st->f32_packed_floats = (k - last) / DEPTH_CHUNK * st->chunk_floats +
                            rl_f32_gemm_packed_size(n, 1, last, st->f32.nr) / sizeof(float);
    st->f32_packed_floats = (st->f32_packed_floats + 15) / 16 * 16; /* each batch's panels 64-byte aligned */
    const size_t packed_bytes = st->y_batches * st->f32_packed_floats * sizeof(float);
    size_t scratch = 0;
    st->xf_at = scratch;
    scratch += aligned64(st->x_batches * st->m * k * sizeof(float));
    if (y_constant) {
        float *packed = (float *)rl_op_scratch(plan, op, packed_bytes);
        if (!packed) return RL_NO_MEMORY;
        for (size_t b = 0; b < st->y_batches; ++b)
            pack_y_f32(n, k, st->f32.nr, st->chunk_floats, (float)st->p.y_zero_point, y_known + b * k * n,
                       st->adj_y ? k : 1, st->adj_y ? 1 : n, packed + b * st->f32_packed_floats);
        st->f32_packed = packed;
        op->packed_inputs |= 1u << 1;
        op->packed_weight_bytes = packed_bytes;
    } else {
        st->f32_packed_at = scratch;
        scratch += packed_bytes;
    }
    rl_request_arena_scratch(op, scratch);
    if (k > 0) op->run = run_batch_matmul_int8;
    /* Bands over the products' rows: x by rows (its own matrix per product), y read whole. */
    const rl_tensor *x = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if (k > 0 && k <= BAND_MAX_DEPTH && st->f32.nr * (1 + k) <= BAND_PANEL_FLOATS && !y_constant && !st->adj_x &&
        st->f32.mr <= BAND_ROWS && st->x_batches == st->batches && st->batches > 0 && st->m > 0 && n > 0 &&
        x->shape.rank > 0 && output->shape.rank > 0 && x->shape.dims[x->shape.rank - 1] == (int32_t)k &&
        output->shape.dims[output->shape.rank - 1] == (int32_t)n) {
        rl_offer_pixel_rows(op, output, run_exact_f32_rows);
        op->begin_rows = begin_exact_f32_rows;
        op->band_whole_inputs = 2u;
        op->band_no_scratch = 1; /* the band converts and packs on its stack */
    }
    return RL_OK;
}

rl_status rl_prepare_batch_matmul_quantized(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0), *y = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const rl_batch_matmul_params *bp = &op->params.batch_matmul;
    if (x->dtype == RL_INT16) return rl_prepare_batch_matmul_int16(plan, op);
    rl_status s = rl_expect_dtype(plan, y, "y", RL_INT8);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, x, "int8 x");
    /* TFLite's kernel reads one scale; LiteRT runs a per-channel y with scale 0 (every output its zero point). */
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, y, "int8 y");
    if (s == RL_OK) s = rl_expect_dtype(plan, output, "output", RL_INT8);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, output, "int8 output");
    if (s != RL_OK) return s;
    const size_t m = (size_t)op->prep.perm[0], k = (size_t)op->prep.perm[1], n = (size_t)op->prep.perm[2];
    const size_t x_count = (size_t)rl_shape_count(&x->shape), y_count = (size_t)rl_shape_count(&y->shape);
    const size_t x_batches = m * k != 0 ? x_count / (m * k) : 0, y_batches = k * n != 0 ? y_count / (k * n) : 0;
    /* An empty output computes nothing, however many batches its shape names (none of them are listed). */
    const size_t batches = m != 0 && n != 0 ? (size_t)op->prep.bc.count : 0;
    const int8_t *y_known = (const int8_t *)rl_known_data(y);
    const int y_constant = y_known != NULL && !y->is_variable;
    const size_t sizes[3] = {sizeof(rl_s8_batch_matmul_state), batches * sizeof(int64_t), batches * sizeof(int64_t)};
    void *parts[3];
    rl_s8_batch_matmul_state *st = (rl_s8_batch_matmul_state *)rl_op_state_parts(plan, op, 3, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    if ((s = batch_matmul_params(plan, x, y, output, &st->p)) != RL_OK) return s;
    st->m = m, st->k = k, st->n = n;
    st->x_batches = x_batches, st->y_batches = y_batches, st->batches = batches;
    st->adj_x = bp->adj_x, st->adj_y = bp->adj_y;
    int64_t *x_batch_of = (int64_t *)parts[1], *y_batch_of = (int64_t *)parts[2];
    int64_t index[8] = {0};
    for (size_t b = 0; b < batches; ++b) {
        int64_t a_off = 0, b_off = 0;
        for (int d = 0; d < 8; ++d) {
            a_off += index[d] * op->prep.bc.a_strides[d];
            b_off += index[d] * op->prep.bc.b_strides[d];
        }
        x_batch_of[b] = a_off, y_batch_of[b] = b_off;
        rl_next_index(8, op->prep.bc.out_dims, index);
    }
    st->x_batch_of = x_batch_of, st->y_batch_of = y_batch_of;
    st->x_rows_at = 0;
    if (st->p.y_zero_point == 0) return prepare_gemm(plan, op, st, y_known, y_constant, bp->adj_x ? aligned64(x_count) : 0);
    return prepare_exact_f32(plan, op, st, y_known, y_constant);
}

/* The whole-op reference (the specification), for what the driver leaves to it: k == 0. */
rl_status rl_eval_batch_matmul_quantized(rl_plan *plan, rl_op *op) {
    const rl_s8_batch_matmul_state *st = (const rl_s8_batch_matmul_state *)op->state;
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    plan->kernels->s8_batch_matmul(&op->prep.bc, op->prep.perm[0], op->prep.perm[1], op->prep.perm[2], p->adj_x,
                                   p->adj_y, &st->p, (const int8_t *)rl_input(plan, op, 0)->data,
                                   (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
