/* batch_matmul_int8.c — int8 BATCH_MATMUL with any zero point on either operand (attention's two
 * activations, or a constant y), on the int8-to-int32 row-dot micro-kernels (rowdot.h).
 *
 * The kernels give sum(x * y) over k for rows of x against rows of y's transpose ([n][k]); the zero points
 * come back exactly by expanding sum((x - zx) * (y - zy)):
 *   sum(x * y) - zy * rowsum(x)[i] + (k * zx * zy - zx * colsum(y)[j])
 * in wrapping 32-bit arithmetic, equal to the reference's sum modulo 2^32. The column term rides in the
 * kernel's bias; the row term is added with the requantization (s8_batch_matmul_ref.c says which
 * arithmetic LiteRT's default Interpreter uses for which zero point). A constant y is transposed and its
 * column terms computed at prepare; an activation y, and x's row sums (and x's transpose under adj_x), at
 * every invoke into the op's arena scratch. Threads split output tiles (a batch's block of rows by a block
 * of columns); each output's value does not depend on the tile, so results do not depend on the thread count.
 * TFLite's 16x8 form (int16 x) runs its reference kernel, s16_batch_matmul_ref.c.
 */
#include <string.h>

#include "plan_internal.h"
#include "ops.h"

enum { ROWS_PER_TILE = 8, COLUMNS_PER_TILE = 64 }; /* columns: a multiple of the kernels' 4 */

typedef struct {
    rl_s8_batch_matmul_params p;
    size_t m, k, n;
    size_t x_batches, y_batches, batches; /* x's and y's own batch counts; the output's */
    int32_t adj_x, adj_y, y_constant;
    rl_s8_s32_rowdot_fn rowdot;
    /* y's zero point 0: XNNPACK's arithmetic, the int8 GEMM micro-kernels on y packed into panels. */
    int32_t gemm;
    rl_qs8_gemm_config qs8;
    rl_qs8_requantization_params qs8_params;
    size_t panel_bytes, packed_bytes; /* one nr-wide panel; one batch of y packed */
    const void *packed;               /* a constant y's panels, [y_batches], or NULL */
    size_t packed_at;
    const void *packed_now;
    const int64_t *x_batch_of, *y_batch_of; /* for each output batch, which batch of x and of y it reads */
    const int8_t *y_rows;                   /* a constant y as [y_batches][n][k], or NULL */
    const int32_t *y_terms;                 /* a constant y's column terms, [y_batches][n], or NULL */
    /* Offsets into the arena scratch, in bytes. */
    size_t x_rows_at, x_terms_at, y_rows_at, y_terms_at;
    /* Set at every invoke. */
    const int8_t *x_rows_now, *y_rows_now;
    const int32_t *x_terms_now, *y_terms_now;
    int8_t *out;
} rl_s8_batch_matmul_state;

static size_t aligned64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* rows x cols int8 at src (row-major) into dst as cols x rows. */
static void transpose_s8(size_t rows, size_t cols, const int8_t *src, int8_t *dst) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) dst[c * rows + r] = src[r * cols + c];
}

/* For each of the n rows of y's transpose ([n][k]): k * zx * zy - zx * sum(row), modulo 2^32. */
static void column_terms(size_t n, size_t k, const int8_t *rows, int32_t zx, int32_t zy, int32_t *terms) {
    const uint32_t constant = (uint32_t)k * (uint32_t)zx * (uint32_t)zy;
    for (size_t j = 0; j < n; ++j) {
        int32_t sum = 0;
        for (size_t q = 0; q < k; ++q) sum += rows[j * k + q];
        terms[j] = (int32_t)(constant - (uint32_t)zx * (uint32_t)sum);
    }
}

/* For each of the m rows of x ([m][k]): -zy * sum(row), modulo 2^32. */
static void row_terms(size_t m, size_t k, const int8_t *rows, int32_t zy, int32_t *terms) {
    for (size_t i = 0; i < m; ++i) {
        int32_t sum = 0;
        for (size_t q = 0; q < k; ++q) sum += rows[i * k + q];
        terms[i] = (int32_t)(0u - (uint32_t)zy * (uint32_t)sum);
    }
}

/* Output tile: batch b's rows [i0, i0 + ROWS_PER_TILE) (tile index t = b * row_blocks + block) by columns
 * [j, j + count). */
static void batch_matmul_tile(void *context, size_t t, size_t j, size_t tiles, size_t count) {
    const rl_s8_batch_matmul_state *st = (const rl_s8_batch_matmul_state *)context;
    (void)tiles;
    const size_t row_blocks = (st->m + ROWS_PER_TILE - 1) / ROWS_PER_TILE;
    const size_t b = t / row_blocks, i0 = t % row_blocks * ROWS_PER_TILE;
    const size_t rows = st->m - i0 < ROWS_PER_TILE ? st->m - i0 : ROWS_PER_TILE;
    const size_t xb = (size_t)st->x_batch_of[b], yb = (size_t)st->y_batch_of[b];
    const int8_t *x = st->x_rows_now + (xb * st->m + i0) * st->k;
    const int8_t *y = st->y_rows_now + (yb * st->n + j) * st->k;
    const int32_t *x_terms = st->x_terms_now ? st->x_terms_now + xb * st->m + i0 : NULL;
    int32_t sums[ROWS_PER_TILE * COLUMNS_PER_TILE];
    st->rowdot(rows, count, st->k, x, st->k, y, st->y_terms_now + yb * st->n + j, sums, COLUMNS_PER_TILE);
    int8_t *out = st->out + (b * st->m + i0) * st->n + j;
    for (size_t i = 0; i < rows; ++i) {
        const uint32_t row_term = x_terms ? (uint32_t)x_terms[i] : 0u;
        for (size_t c = 0; c < count; ++c)
            out[i * st->n + c] =
                rl_s8_batch_matmul_requantize((int32_t)((uint32_t)sums[i * COLUMNS_PER_TILE + c] + row_term), &st->p);
    }
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
 * ROWS_PER_GEMM_TILE rows) by columns [j, j + count), j a multiple of nr. */
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

static rl_status run_batch_matmul_int8(rl_plan *plan, rl_op *op) {
    rl_s8_batch_matmul_state *st = (rl_s8_batch_matmul_state *)op->state;
    const int8_t *x = (const int8_t *)rl_input(plan, op, 0)->data, *y = (const int8_t *)rl_input(plan, op, 1)->data;
    char *scratch = (char *)op->arena_scratch;
    const size_t m = st->m, k = st->k, n = st->n;
    st->out = (int8_t *)rl_output(plan, op, 0)->data;
    if (st->batches == 0 || m == 0 || n == 0) return RL_OK;
    st->x_rows_now = x;
    if (st->adj_x) {
        int8_t *rows = (int8_t *)(scratch + st->x_rows_at);
        for (size_t b = 0; b < st->x_batches; ++b) transpose_s8(k, m, x + b * m * k, rows + b * m * k);
        st->x_rows_now = rows;
    }
    if (st->gemm) {
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
        rl_parallelize_2d_tile_2d(plan->pool, batch_matmul_gemm_tile, st, st->batches * row_blocks, n, 1,
                                  st->qs8.nr * 4);
        return RL_OK;
    }
    st->x_terms_now = NULL;
    if (st->p.y_zero_point != 0) {
        int32_t *terms = (int32_t *)(scratch + st->x_terms_at);
        for (size_t b = 0; b < st->x_batches; ++b)
            row_terms(m, k, st->x_rows_now + b * m * k, st->p.y_zero_point, terms + b * m);
        st->x_terms_now = terms;
    }
    if (st->y_constant) {
        st->y_rows_now = st->y_rows ? st->y_rows : y;
        st->y_terms_now = st->y_terms;
    } else {
        const int8_t *rows = y;
        if (!st->adj_y) {
            int8_t *t = (int8_t *)(scratch + st->y_rows_at);
            for (size_t b = 0; b < st->y_batches; ++b) transpose_s8(k, n, y + b * k * n, t + b * k * n);
            rows = t;
        }
        int32_t *terms = (int32_t *)(scratch + st->y_terms_at);
        for (size_t b = 0; b < st->y_batches; ++b)
            column_terms(n, k, rows + b * k * n, st->p.x_zero_point, st->p.y_zero_point, terms + b * n);
        st->y_rows_now = rows;
        st->y_terms_now = terms;
    }
    const size_t row_blocks = (m + ROWS_PER_TILE - 1) / ROWS_PER_TILE;
    rl_parallelize_2d_tile_2d(plan->pool, batch_matmul_tile, st, st->batches * row_blocks, n, 1, COLUMNS_PER_TILE);
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
    st->gemm = 1;
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

/* TFLite's 16x8 mode on the reference kernel (s16_batch_matmul_ref.c): int16 x, int8 or int16 y. */
typedef struct {
    int32_t multiplier, shift;
} rl_s16_batch_matmul_state;

static rl_status run_batch_matmul_int16(rl_plan *plan, rl_op *op) {
    const rl_s16_batch_matmul_state *st = (const rl_s16_batch_matmul_state *)op->state;
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    const rl_tensor *y = rl_input(plan, op, 1);
    s16_batch_matmul_ref(&op->prep.bc, op->prep.perm[0], op->prep.perm[1], op->prep.perm[2], p->adj_x, p->adj_y,
                         st->multiplier, st->shift, (const int16_t *)rl_input(plan, op, 0)->data, y->data,
                         y->dtype == RL_INT8, (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

static rl_status expect_zero_point_0(rl_plan *plan, const rl_tensor *t, const char *what) {
    rl_status s = rl_expect_per_tensor_quantization(plan, t, what);
    if (s == RL_OK && rl_tensor_zero_point(t, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "%s has zero point %d; TFLite's 16x8 BATCH_MATMUL needs 0", what,
                       rl_tensor_zero_point(t, 0));
    return s;
}

static rl_status prepare_batch_matmul_int16(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0), *y = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (y->dtype != RL_INT8 && y->dtype != RL_INT16)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 x with %s y has no kernel (int8 or int16 y)", rl_dtype_name(y->dtype));
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = expect_zero_point_0(plan, x, "int16 x");
    if (s == RL_OK) s = expect_zero_point_0(plan, y, y->dtype == RL_INT8 ? "int8 y" : "int16 y");
    if (s == RL_OK) s = expect_zero_point_0(plan, output, "int16 output");
    if (s != RL_OK) return s;
    rl_s16_batch_matmul_state *st = (rl_s16_batch_matmul_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const float product = rl_tensor_scale(x, 0) * rl_tensor_scale(y, 0);
    const double real = (double)product / (double)rl_tensor_scale(output, 0);
    if (rl_quantize_multiplier(real, &st->multiplier, &st->shift) || st->shift < -31 || st->shift > 7)
        return rl_fail(plan, RL_UNSUPPORTED, "requantization scale %g (x * y / output scale) is outside TFLite's "
                       "16-bit range [2^-32, 2^7)", real);
    op->run = run_batch_matmul_int16;
    return RL_OK;
}

rl_status rl_prepare_batch_matmul_quantized(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0), *y = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const rl_batch_matmul_params *bp = &op->params.batch_matmul;
    if (x->dtype == RL_INT16) return prepare_batch_matmul_int16(plan, op);
    rl_status s = rl_expect_dtype(plan, y, "y", RL_INT8);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, x, "int8 x");
    /* TFLite's kernel reads one scale; LiteRT runs a per-channel y with scale 0 (every output its zero point). */
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, y, "int8 y");
    if (s == RL_OK) s = rl_expect_dtype(plan, output, "output", RL_INT8);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, output, "int8 output");
    if (s != RL_OK) return s;
    const size_t m = (size_t)op->prep.perm[0], k = (size_t)op->prep.perm[1], n = (size_t)op->prep.perm[2];
    const size_t x_count = (size_t)rl_shape_count(&x->shape), y_count = (size_t)rl_shape_count(&y->shape);
    const size_t x_batches = m * k ? x_count / (m * k) : 0, y_batches = k * n ? y_count / (k * n) : 0;
    const size_t batches = (size_t)op->prep.bc.count;
    const int8_t *y_known = (const int8_t *)rl_known_data(y);
    const int y_constant = y_known != NULL && !y->is_variable;
    const int rowdot_y = y_constant && rl_tensor_zero_point(y, 0) != 0; /* the row-dot path's constant y */
    const size_t y_rows_bytes = rowdot_y && !bp->adj_y ? aligned64(y_count) : 0;
    const size_t sizes[5] = {sizeof(rl_s8_batch_matmul_state), batches * sizeof(int64_t), batches * sizeof(int64_t),
                             y_rows_bytes, rowdot_y ? y_batches * n * sizeof(int32_t) : 0};
    void *parts[5];
    rl_s8_batch_matmul_state *st = (rl_s8_batch_matmul_state *)rl_op_state_parts(plan, op, 5, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    if ((s = batch_matmul_params(plan, x, y, output, &st->p)) != RL_OK) return s;
    st->m = m, st->k = k, st->n = n;
    st->x_batches = x_batches, st->y_batches = y_batches, st->batches = batches;
    st->adj_x = bp->adj_x, st->adj_y = bp->adj_y, st->y_constant = y_constant;
    /* A constant y without -128 (TFLite's quantizer writes [-127, 127]) takes AVX2's faster kernel. */
    int narrow = y_constant;
    for (size_t e = 0; narrow && e < y_count; ++e) narrow = y_known[e] != -128;
    st->rowdot = narrow ? plan->kernels->s8_s32_rowdot.rowdot_narrow_weights : plan->kernels->s8_s32_rowdot.rowdot;
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
    size_t scratch = 0;
    st->x_rows_at = scratch;
    if (bp->adj_x) scratch += aligned64(x_count);
    if (st->p.y_zero_point == 0) return prepare_gemm(plan, op, st, y_known, y_constant, scratch);
    st->x_terms_at = scratch;
    if (st->p.y_zero_point != 0) scratch += aligned64(x_batches * m * sizeof(int32_t));
    if (y_constant) {
        int8_t *rows = (int8_t *)parts[3];
        if (!bp->adj_y)
            for (size_t b = 0; b < y_batches; ++b) transpose_s8(k, n, y_known + b * k * n, rows + b * k * n);
        int32_t *terms = (int32_t *)parts[4];
        for (size_t b = 0; b < y_batches; ++b)
            column_terms(n, k, (bp->adj_y ? y_known : rows) + b * k * n, st->p.x_zero_point, st->p.y_zero_point,
                         terms + b * n);
        st->y_rows = bp->adj_y ? NULL : rows; /* y's own rows when they already are [n][k] */
        st->y_terms = terms;
        if (!bp->adj_y) op->packed_inputs |= 1u << 1;
        op->packed_weight_bytes = y_rows_bytes;
    } else {
        st->y_rows_at = scratch;
        if (!bp->adj_y) scratch += aligned64(y_count);
        st->y_terms_at = scratch;
        scratch += aligned64(y_batches * n * sizeof(int32_t));
    }
    if (scratch) rl_request_arena_scratch(op, scratch);
    if (k > 0) op->run = run_batch_matmul_int8; /* an empty sum: the reference's requantized 0 */
    return RL_OK;
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
