/* elementwise_int8.c — int8 ADD, SUB, MUL: which arithmetic LiteRT's Interpreter uses, its constants, and the
 * loop over the broadcast (rows of micro-kernels, see rl_s8_binary_state).
 *
 * LiteRT's default Interpreter (OpResolverType.AUTO) applies the XNNPACK delegate, which takes int8
 * ADD/SUB when each input-to-output scale ratio is in [1/1024, 256) and int8 MUL when the
 * product-to-output ratio is in [1/65536, 256) (ratios computed in float, as the delegate checks them);
 * other scales fall back to TFLite's builtin kernels. rillet makes the same choice here, so the bits
 * agree on both sides of the boundary (tests/runtime/test_int8_elementwise_ops.py sweeps both).
 */
#include <math.h>
#include <string.h>

#include "bands.h"
#include "conv_gemm.h" /* rl_parallelize_elements' constants, rl_pool_for */
#include "ops.h"

/* XNNPACK's xnn_qs8_quantize of a fused activation's float bound: division and zero point in float,
 * rounded to nearest even (TFLite's own range rounds ties away from zero: it differs at exact halves). */
static int32_t xnnpack_quantize_bound(float value, float scale, int32_t zero_point) {
    float q = value / scale + (float)zero_point;
    q = q < -128.0f ? -128.0f : (q > 127.0f ? 127.0f : q);
    return (int32_t)nearbyintf(q);
}

static void xnnpack_activation_range(int32_t activation, float scale, int32_t zero_point, int32_t *lo, int32_t *hi) {
    *lo = -128;
    *hi = 127;
    if (activation == RL_ACT_RELU || activation == RL_ACT_RELU6) *lo = xnnpack_quantize_bound(0.0f, scale, zero_point);
    if (activation == RL_ACT_RELU6) *hi = xnnpack_quantize_bound(6.0f, scale, zero_point);
    if (activation == RL_ACT_RELU_N1_TO_1) {
        *lo = xnnpack_quantize_bound(-1.0f, scale, zero_point);
        *hi = xnnpack_quantize_bound(1.0f, scale, zero_point);
    }
}

static int xnnpack_takes_ratio(float ratio, float lo, float hi) { return ratio >= lo && ratio < hi; }

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* XNNPACK's qs8 add parameters: the larger ratio's exponent sets a shift giving ~21-bit multipliers. */
static void prepare_xnnpack_add(float a_ratio, float b_ratio, rl_s8_binary_params *p) {
    const float larger = fabsf(a_ratio) > fabsf(b_ratio) ? fabsf(a_ratio) : fabsf(b_ratio);
    const int32_t exponent = (int32_t)(float_bits(larger) >> 23) - 127;
    const int32_t shift = 20 - exponent; /* in [13, 30] for ratios the delegate takes */
    /* ratio * 2^shift by adding to the exponent bits (exact), then rounded to nearest even */
    p->xnn_a_multiplier = (int32_t)lrintf(ldexpf(a_ratio, shift));
    p->xnn_b_multiplier = (int32_t)lrintf(ldexpf(b_ratio, shift));
    p->xnn_shift = shift;
    p->xnn_bias = (int32_t)(1u << (shift - 1)) - p->xnn_a_multiplier * p->a_zero_point -
                  p->xnn_b_multiplier * p->b_zero_point;
}

static rl_status prepare_tflite_add(rl_plan *plan, double a_scale, double b_scale, double out_scale,
                                    rl_s8_binary_params *p) {
    /* TFLite's int8 ADD/SUB: left shift 20, inputs scaled to twice the larger input scale (in double). */
    const double twice_max = 2.0 * (a_scale > b_scale ? a_scale : b_scale);
    p->left_shift = 20;
    if (rl_quantize_multiplier(a_scale / twice_max, &p->a_multiplier, &p->a_shift) ||
        rl_quantize_multiplier(b_scale / twice_max, &p->b_multiplier, &p->b_shift) ||
        rl_quantize_multiplier(twice_max / ((double)(1 << p->left_shift) * out_scale), &p->output_multiplier,
                               &p->output_shift))
        return rl_fail(plan, RL_INVALID, "the input and output scales give a multiplier out of range");
    return RL_OK;
}

/* The broadcast with its size-1 axes dropped and neighbouring axes merged where both operands walk them as
 * one (both strides 0, or each stride the next axis's stride times its size), right-aligned in rank 8: a
 * per-channel [C] over [N,H,W,C] becomes rows of C over one outer axis, a constant over any shape one row. */
static void collapse_broadcast(rl_broadcast *bc) {
    int64_t dims[8], as[8], bs[8];
    int n = 0; /* collapsed axes so far, outermost first */
    for (int d = 0; d < 8; ++d) {
        if (bc->out_dims[d] == 1) continue;
        if (n > 0 && as[n - 1] == bc->a_strides[d] * bc->out_dims[d] && bs[n - 1] == bc->b_strides[d] * bc->out_dims[d]) {
            dims[n - 1] *= bc->out_dims[d];
            as[n - 1] = bc->a_strides[d];
            bs[n - 1] = bc->b_strides[d];
            continue;
        }
        dims[n] = bc->out_dims[d];
        as[n] = bc->a_strides[d];
        bs[n] = bc->b_strides[d];
        ++n;
    }
    for (int d = 0; d < 8; ++d) {
        const int from = d - (8 - n); /* right-aligned */
        bc->out_dims[d] = from >= 0 ? dims[from] : 1;
        bc->a_strides[d] = from >= 0 ? as[from] : 0;
        bc->b_strides[d] = from >= 0 ? bs[from] : 0;
    }
}

/* The op's prepared state: the collapsed broadcast; in XNNPACK's arithmetic walked in rows of its last axis,
 * each row one micro-kernel call (two vectors, or a vector and one element); in TFLite's (scales XNNPACK
 * refuses, rare) handed whole to the reference kernel. */
typedef struct {
    rl_broadcast bc;
    rl_qs8_vbinary_fn vector, constant; /* vadd/vmul, vaddc/vmulc of the plan's path; NULL for TFLite's kinds */
    rl_s8_binary_params params;         /* a the left operand, b the right */
    rl_s8_binary_params swapped;        /* the operands exchanged: for rows where a is the one element */
    /* A short vector over whole rows (a per-channel [C] against [N,H,W,C], either side): the vector copied
     * tile_rows times into `tiled` at each run, so one kernel call covers tile_rows rows instead of one. */
    size_t tile_rows;
    int32_t vector_is_a;
    int8_t *tiled;
} rl_s8_binary_state;

RL_STATIC_ASSERT(sizeof(rl_s8_binary_state) <= 512, "rl_s8_binary_state is a small header");

/* Rows shorter than this get a tiled vector; the tiles reach at least this many elements. */
#define RL_S8_TILE_ELEMENTS 256

/* One row of `n` outputs from a row of a (stride sa, 0 or 1) and of b (sb). */
static void binary_row(const rl_s8_binary_state *st, size_t n, const int8_t *a, int64_t sa, const int8_t *b,
                       int64_t sb, int8_t *out) {
    if (sa == 1 && sb == 1) st->vector(n, a, b, out, &st->params);
    else if (sa == 1) st->constant(n, a, b, out, &st->params);
    else if (sb == 1) st->constant(n, b, a, out, &st->swapped);
    else st->constant(1, a, b, out, &st->params); /* a one-element row (n is 1 here) */
}

/* Outside bands the rows of the collapsed output ([.., inner]) split across the plan's threads: whole rows
 * when there are enough of them, else runs of RL_ELEMENT_BLOCK elements within the rows (a same-shape or
 * single-value operation collapses to one row). Every element is computed by the same kernel call sequence
 * position within its row's SIMD blocks as on one thread, so the bits do not depend on the split. */
typedef struct {
    const rl_s8_binary_state *st;
    const int8_t *a, *b;
    int8_t *out;
} rl_s8_binary_job;

/* Columns j .. j + n - 1 of rows i .. i + rows - 1. */
static void binary_tile(void *context, size_t i, size_t j, size_t rows, size_t n) {
    const rl_s8_binary_job *job = (const rl_s8_binary_job *)context;
    const rl_s8_binary_state *st = job->st;
    const rl_broadcast *bc = &st->bc;
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    int64_t index[7], ia = (int64_t)j * sa, ib = (int64_t)j * sb;
    size_t rest = i;
    for (int d = 6; d >= 0; --d) { /* row i's position on the outer axes */
        index[d] = (int64_t)(rest % (size_t)bc->out_dims[d]);
        rest /= (size_t)bc->out_dims[d];
        ia += index[d] * bc->a_strides[d];
        ib += index[d] * bc->b_strides[d];
    }
    int8_t *out = job->out + i * (size_t)inner + j;
    for (size_t r = 0; r < rows; ++r, out += inner) {
        binary_row(st, n, job->a + ia, sa, job->b + ib, sb, out);
        for (int d = 6; d >= 0; --d) { /* the odometer over the outer axes, offsets kept incrementally */
            ia += bc->a_strides[d];
            ib += bc->b_strides[d];
            if (++index[d] < bc->out_dims[d]) break;
            ia -= bc->a_strides[d] * bc->out_dims[d];
            ib -= bc->b_strides[d] * bc->out_dims[d];
            index[d] = 0;
        }
    }
}

/* The collapsed [rows, C] case with one operand a vector of C: tile_rows rows per kernel call, tile_rows rows
 * per unit of the split. */
static void tiled_rows(void *context, size_t unit, size_t unused_j, size_t units, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_s8_binary_job *job = (const rl_s8_binary_job *)context;
    const rl_s8_binary_state *st = job->st;
    const size_t rows = (size_t)st->bc.out_dims[6], c = (size_t)st->bc.out_dims[7];
    const int8_t *full = st->vector_is_a ? job->b : job->a;
    const rl_s8_binary_params *params = st->vector_is_a ? &st->swapped : &st->params;
    const size_t end = (unit + units) * st->tile_rows < rows ? (unit + units) * st->tile_rows : rows;
    for (size_t r = unit * st->tile_rows; r < end; r += st->tile_rows) {
        const size_t n = (end - r < st->tile_rows ? end - r : st->tile_rows) * c;
        st->vector(n, full + r * c, st->tiled, job->out + r * c, params);
    }
}

static rl_status run_xnnpack_binary(rl_plan *plan, rl_op *op) {
    const rl_s8_binary_state *st = (const rl_s8_binary_state *)op->state;
    const rl_broadcast *bc = &st->bc;
    rl_s8_binary_job job = {.st = st, .a = (const int8_t *)rl_input(plan, op, 0)->data,
                            .b = (const int8_t *)rl_input(plan, op, 1)->data,
                            .out = (int8_t *)rl_output(plan, op, 0)->data};
    if (bc->count == 0) return RL_OK;
    rl_threadpool *pool = rl_pool_for(plan, (size_t)bc->count * RL_ELEMENT_WORK);
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    if (st->tile_rows > 1) {
        const size_t c = (size_t)bc->out_dims[7];
        for (size_t t = 0; t < st->tile_rows; ++t) memcpy(st->tiled + t * c, st->vector_is_a ? job.a : job.b, c);
        const size_t units = ((size_t)bc->out_dims[6] + st->tile_rows - 1) / st->tile_rows;
        rl_parallelize_2d_tile_2d(pool, tiled_rows, &job, units, 1, pool ? (units + want - 1) / want : units, 1);
        return RL_OK;
    }
    const size_t inner = (size_t)bc->out_dims[7], rows = (size_t)bc->count / inner;
    size_t tile_rows = rows, tile_columns = inner;
    if (pool && rows >= want) {
        tile_rows = (rows + want - 1) / want;
    } else if (pool) { /* few long rows: each row in runs of whole blocks */
        tile_rows = 1;
        const size_t per_row = (want + rows - 1) / rows, blocks = (inner + RL_ELEMENT_BLOCK - 1) / RL_ELEMENT_BLOCK;
        tile_columns = RL_ELEMENT_BLOCK * ((blocks + per_row - 1) / per_row);
    }
    rl_parallelize_2d_tile_2d(pool, binary_tile, &job, rows, inner, tile_rows, tile_columns);
    return RL_OK;
}

static rl_status run_tflite_binary(rl_plan *plan, rl_op *op) {
    const rl_s8_binary_state *st = (const rl_s8_binary_state *)op->state;
    plan->kernels->s8_binary(&st->bc, &st->params, (const int8_t *)rl_input(plan, op, 0)->data,
                             (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* Banded execution (bands.h). Chunks (one collapsed row: same shapes, or one operand a single value): the
 * band's elements of that row. Pixels (rows of the output's last axis, each operand the output's rows, one
 * value per row, or read whole: a transformer's layer norm over tokens): the band's rows, as binary_tile. */
static void run_s8_binary_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_s8_binary_state *st = (const rl_s8_binary_state *)op->state;
    rl_s8_binary_job job = {.st = st, .a = (const int8_t *)rl_input(plan, op, 0)->data,
                            .b = (const int8_t *)rl_input(plan, op, 1)->data,
                            .out = (int8_t *)rl_output(plan, op, 0)->data};
    const int64_t sa = st->bc.a_strides[7], sb = st->bc.b_strides[7];
    if (op->band_chunks) {
        const size_t elements = (size_t)st->bc.count / (op->band_rows * op->band_row_pixels), at = first * elements;
        if (!st->vector) { /* TFLite's arithmetic: the reference over the chunk as a row of its own */
            rl_broadcast row = {.count = (int64_t)(count * elements)};
            for (int d = 0; d < 8; ++d) row.out_dims[d] = 1;
            row.out_dims[7] = row.count;
            row.a_strides[7] = sa;
            row.b_strides[7] = sb;
            plan->kernels->s8_binary(&row, &st->params, job.a + (int64_t)at * sa, job.b + (int64_t)at * sb,
                                     job.out + at);
            return;
        }
        binary_row(st, count * elements, job.a + (int64_t)at * sa, sa, job.b + (int64_t)at * sb, sb, job.out + at);
        return;
    }
    binary_tile(&job, first, 0, count, (size_t)st->bc.out_dims[7]);
}

static void offer_s8_binary_rows(rl_plan *plan, rl_op *op, const rl_s8_binary_state *st) {
    const rl_broadcast *bc = &st->bc;
    const rl_tensor *output = rl_output(plan, op, 0);
    const int64_t sa = bc->a_strides[7], sb = bc->b_strides[7];
    if (bc->count <= 0 || (sa == 0 && sb == 0)) return;
    if ((int64_t)bc->out_dims[7] == bc->count) { /* one row: any chunk of it */
        rl_offer_chunk_rows(op, output, run_s8_binary_rows);
        op->band_whole_inputs = (sa == 0 ? 1u : 0u) | (sb == 0 ? 2u : 0u);
        return;
    }
    const rl_shape *s = &output->shape;
    if (!st->vector) return; /* TFLite's arithmetic: rows of the reference only as chunks of one row */
    const int ra = rl_band_read_of(bc, bc->a_strides), rb = rl_band_read_of(bc, bc->b_strides);
    if (s->rank < 1 || bc->out_dims[7] != s->dims[s->rank - 1] || !ra || !rb) return;
    rl_offer_pixel_rows(op, output, run_s8_binary_rows);
    op->band_whole_inputs = (ra == RL_BAND_READ_WHOLE ? 1u : 0u) | (rb == RL_BAND_READ_WHOLE ? 2u : 0u);
}

/* Banded execution of the tiled case: pixels first .. first + count - 1 (each a row of C), a kernel call per
 * tile_rows of them, as tiled_rows calls it; `tiled` was filled by begin_tiled_rows before the bands. An SE
 * block's MUL by its [C] scales then heads the bands of the 1x1 convolution after it. */
static void run_tiled_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_s8_binary_state *st = (const rl_s8_binary_state *)op->state;
    const size_t c = (size_t)st->bc.out_dims[7], end = first + count;
    const int8_t *full = (const int8_t *)rl_input(plan, op, st->vector_is_a ? 1 : 0)->data;
    int8_t *out = (int8_t *)rl_output(plan, op, 0)->data;
    const rl_s8_binary_params *params = st->vector_is_a ? &st->swapped : &st->params;
    if (!st->tile_rows) { /* rows long enough on their own (C >= RL_S8_TILE_ELEMENTS): binary_tile's calls */
        const int8_t *vector = (const int8_t *)rl_input(plan, op, st->vector_is_a ? 0 : 1)->data;
        for (size_t r = first; r < end; ++r) st->vector(c, full + r * c, vector, out + r * c, params);
        return;
    }
    for (size_t r = first; r < end; r += st->tile_rows) {
        const size_t n = (end - r < st->tile_rows ? end - r : st->tile_rows) * c;
        st->vector(n, full + r * c, st->tiled, out + r * c, params);
    }
}

/* The vector is complete before the segment starts (bands.c: no op of it writes an input read whole). */
static void begin_tiled_rows(rl_plan *plan, rl_op *op) {
    const rl_s8_binary_state *st = (const rl_s8_binary_state *)op->state;
    const size_t c = (size_t)st->bc.out_dims[7];
    const int8_t *vector = (const int8_t *)rl_input(plan, op, st->vector_is_a ? 0 : 1)->data;
    for (size_t t = 0; t < st->tile_rows; ++t) memcpy(st->tiled + t * c, vector, c);
}

/* XNNPACK's kinds run as rows of micro-kernels; the exchanged parameters serve rows whose left operand is the
 * one element (a SUB's constant minuend): for ADD/SUB the multipliers and zero points change places (the
 * bias holds both terms already), for MUL the zero points. */
static rl_status use_binary_driver(rl_plan *plan, rl_op *op, const rl_s8_binary_params *p) {
    rl_broadcast bc = op->prep.bc;
    collapse_broadcast(&bc);
    /* [rows, C] with a full operand and a vector of C (strides [C, 1] and [0, 1]) and short rows: tiled */
    const int64_t rows = bc.out_dims[6], c = bc.out_dims[7];
    const int one_outer = bc.out_dims[5] == 1, short_rows = c > 1 && c < RL_S8_TILE_ELEMENTS && rows > 1;
    const int a_vector = bc.a_strides[6] == 0 && bc.a_strides[7] == 1 && bc.b_strides[6] == c && bc.b_strides[7] == 1;
    const int b_vector = bc.b_strides[6] == 0 && bc.b_strides[7] == 1 && bc.a_strides[6] == c && bc.a_strides[7] == 1;
    const int xnnpack = p->kind == RL_S8_ADDSUB_XNNPACK || p->kind == RL_S8_MUL_XNNPACK;
    const size_t tile_rows = xnnpack && one_outer && short_rows && (a_vector || b_vector)
                                 ? (size_t)((RL_S8_TILE_ELEMENTS + c - 1) / c) : 0;
    const size_t sizes[2] = {sizeof(rl_s8_binary_state), tile_rows * (size_t)c};
    void *parts[2];
    rl_s8_binary_state *st = (rl_s8_binary_state *)rl_op_state_parts(plan, op, tile_rows ? 2 : 1, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    st->bc = bc;
    st->tile_rows = tile_rows;
    st->vector_is_a = a_vector;
    st->tiled = tile_rows ? (int8_t *)parts[1] : NULL;
    st->params = *p;
    if (p->kind != RL_S8_ADDSUB_XNNPACK && p->kind != RL_S8_MUL_XNNPACK) {
        op->run = run_tflite_binary;
        offer_s8_binary_rows(plan, op, st);
        return RL_OK;
    }
    const rl_qs8_vbinary_config *k = &plan->kernels->qs8_vbinary;
    const int add = p->kind == RL_S8_ADDSUB_XNNPACK;
    st->vector = add ? k->vadd : k->vmul;
    st->constant = add ? k->vaddc : k->vmulc;
    st->swapped = *p;
    st->swapped.a_zero_point = p->b_zero_point;
    st->swapped.b_zero_point = p->a_zero_point;
    st->swapped.xnn_a_multiplier = p->xnn_b_multiplier;
    st->swapped.xnn_b_multiplier = p->xnn_a_multiplier;
    op->run = run_xnnpack_binary;
    offer_s8_binary_rows(plan, op, st);
    /* A vector of the output's channels (a squeeze-and-excite block's scales) takes the tiled rows instead. */
    const rl_shape *out_shape = &rl_output(plan, op, 0)->shape;
    const int channel_vector = out_shape->rank > 0 && c == out_shape->dims[out_shape->rank - 1]; /* not [W, C] */
    if (one_outer && rows > 1 && c > 1 && (a_vector || b_vector) && channel_vector) { /* a pixel: a row of C */
        rl_offer_pixel_rows(op, rl_output(plan, op, 0), run_tiled_rows);
        op->band_whole_inputs = a_vector ? 1u : 2u;
        if (tile_rows) op->begin_rows = begin_tiled_rows;
    }
    return RL_OK;
}

/* MUL(x, f(x)) with f an int8 table op (a swish: x * LOGISTIC(x)) whose output nothing else reads: each output
 * depends on x's value alone, so the MUL becomes one 256-entry table, made by running this path's vmul kernel
 * on every (v, f(v)) pair (the two-op result, bit for bit), and the table op is skipped. EfficientNet-B0 int8's
 * 49 swishes ran a LOGISTIC table and a vmul over 6.2M elements; XNNPACK's delegate runs them as one table. */
typedef struct {
    int64_t count;
    int32_t x_input; /* the MUL's operand that is x (the other one is f(x), never read) */
    int8_t table[256];
} rl_s8_unary_product_state;

static rl_status run_unary_product(rl_plan *plan, rl_op *op) {
    const rl_s8_unary_product_state *st = (const rl_s8_unary_product_state *)op->state;
    rl_s8_lut_elements(plan, st->table, (const int8_t *)rl_input(plan, op, st->x_input)->data,
                       (int8_t *)rl_output(plan, op, 0)->data, st->count);
    return RL_OK;
}

/* Banded execution (bands.h): a chunk of the elements, as the table ops' own (s8_table.c). */
static void run_unary_product_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_s8_unary_product_state *st = (const rl_s8_unary_product_state *)op->state;
    const size_t pixel = rl_band_pixel_elements(op, rl_output(plan, op, 0));
    plan->kernels->s8_lut((int64_t)(count * pixel), st->table,
                          (const int8_t *)rl_input(plan, op, st->x_input)->data + first * pixel,
                          (int8_t *)rl_output(plan, op, 0)->data + first * pixel);
}

/* The table op this MUL's f(x) operand is skipped as: its output is read by no one. */
static rl_status skipped_table_op(rl_plan *plan, rl_op *op) {
    (void)plan;
    (void)op;
    return RL_OK;
}

/* Its bands do nothing either, but it keeps its offer: a segment running through it (a convolution, the
 * skipped LOGISTIC, the swish) goes on to the MUL. */
static void skipped_table_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    (void)plan;
    (void)op;
    (void)first;
    (void)count;
}

/* The plain table op writing `tensor` from `x`, read by this op alone and not a graph output; else NULL. */
static rl_op *lone_table_producer(rl_plan *plan, const rl_op *op, int32_t tensor, int32_t x) {
    rl_op *producer = NULL;
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *other = &plan->ops[i];
        if (other == op) break; /* the producer comes first */
        for (int32_t k = 0; k < other->n_inputs; ++k)
            if (other->inputs[k] == tensor) return NULL;
        if (other->n_outputs == 1 && other->outputs[0] == tensor) producer = other;
    }
    for (int32_t i = (int32_t)(op - plan->ops) + 1; i < plan->n_ops; ++i)
        for (int32_t k = 0; k < plan->ops[i].n_inputs; ++k)
            if (plan->ops[i].inputs[k] == tensor) return NULL;
    for (int32_t k = 0; k < plan->n_graph_outputs; ++k)
        if (plan->graph_outputs[k] == tensor) return NULL;
    if (!producer || producer->n_inputs < 1 || producer->inputs[0] != x || producer->dynamic || producer->folded ||
        producer->run != rl_s8_table_run)
        return NULL;
    const rl_s8_table_state *table = (const rl_s8_table_state *)producer->state;
    return table->lowest_input == -128 ? producer : NULL; /* no input it refuses at eval */
}

static rl_status use_unary_product(rl_plan *plan, rl_op *op, const rl_s8_binary_params *p, int *used) {
    *used = 0;
    /* preserve_all: a user reading every tensor after invoke (LiteRT's experimental_preserve_all_tensors) sees
     * f(x) too, so both ops run */
    if (plan->preserve_all || op->code != RL_OP_MUL || p->kind != RL_S8_MUL_XNNPACK || op->dynamic ||
        op->prep.bc.contiguous != 1 ||
        op->n_inputs < 2 || op->inputs[0] < 0 || op->inputs[1] < 0)
        return RL_OK;
    for (int32_t x_input = 0; x_input < 2; ++x_input) {
        rl_op *producer = lone_table_producer(plan, op, op->inputs[1 - x_input], op->inputs[x_input]);
        if (!producer) continue;
        const int8_t *f = ((const rl_s8_table_state *)producer->state)->table;
        int8_t x[256], fx[256], product[256];
        for (int32_t v = -128; v < 128; ++v) {
            x[(uint8_t)v] = (int8_t)v;
            fx[(uint8_t)v] = f[(uint8_t)v];
        }
        plan->kernels->qs8_vbinary.vmul(256, x_input == 0 ? x : fx, x_input == 0 ? fx : x, product, p);
        rl_s8_unary_product_state *st = (rl_s8_unary_product_state *)rl_op_state(plan, op, sizeof *st);
        if (!st) return RL_NO_MEMORY;
        st->count = op->prep.bc.count;
        st->x_input = x_input;
        memcpy(st->table, product, sizeof product);
        op->run = run_unary_product;
        rl_offer_chunk_rows(op, rl_output(plan, op, 0), run_unary_product_rows);
        producer->run = skipped_table_op;
        if (producer->run_rows) producer->run_rows = skipped_table_rows;
        *used = 1;
        return RL_OK;
    }
    return RL_OK;
}

rl_status rl_prepare_binary_s8(rl_plan *plan, rl_op *op) {
    rl_status s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (op->code != RL_OP_ADD && op->code != RL_OP_SUB && op->code != RL_OP_MUL)
        return rl_fail(plan, RL_UNSUPPORTED, "no int8 kernel");
    if ((s = rl_expect_per_tensor_quantization(plan, a, "input 0")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, b, "input 1")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "output")) != RL_OK) return s;
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc)) != RL_OK) return s;
    rl_s8_binary_params params = {0}, *p = &params;
    const float sa = rl_tensor_scale(a, 0), sb = rl_tensor_scale(b, 0), so = rl_tensor_scale(output, 0);
    p->a_zero_point = rl_tensor_zero_point(a, 0);
    p->b_zero_point = rl_tensor_zero_point(b, 0);
    p->output_zero_point = rl_tensor_zero_point(output, 0);
    const int32_t activation = op->params.arithmetic.activation;
    int32_t xnnpack = 0;
    if (op->code == RL_OP_MUL) {
        const float ratio = sa * sb / so;
        xnnpack = xnnpack_takes_ratio(ratio, 1.0f / 65536.0f, 256.0f);
        p->scale = ratio;
        p->kind = RL_S8_MUL_XNNPACK;
        if (!xnnpack) {
            if (rl_quantize_multiplier((double)sa * (double)sb / (double)so, &p->output_multiplier, &p->output_shift))
                return rl_fail(plan, RL_INVALID, "the input and output scales give a multiplier out of range");
            p->kind = RL_S8_MUL_TFLITE;
        }
    } else {
        const float a_ratio = sa / so, b_ratio = sb / so;
        xnnpack = xnnpack_takes_ratio(a_ratio, 1.0f / 1024.0f, 256.0f) && xnnpack_takes_ratio(b_ratio, 1.0f / 1024.0f, 256.0f);
        if (xnnpack) {
            prepare_xnnpack_add(a_ratio, op->code == RL_OP_SUB ? -b_ratio : b_ratio, p);
            p->kind = RL_S8_ADDSUB_XNNPACK;
        } else {
            if ((s = prepare_tflite_add(plan, sa, sb, so, p)) != RL_OK) return s;
            p->kind = op->code == RL_OP_SUB ? RL_S8_SUB_TFLITE : RL_S8_ADD_TFLITE;
        }
    }
    if ((s = rl_quantized_activation_range(plan, activation, output, &p->act_min, &p->act_max)) != RL_OK) return s;
    if (xnnpack) xnnpack_activation_range(activation, so, p->output_zero_point, &p->act_min, &p->act_max);
    int fused;
    if ((s = use_unary_product(plan, op, p, &fused)) != RL_OK || fused) return s;
    return use_binary_driver(plan, op, p);
}

/* Every kind through the reference kernel (prepare sets a faster run for each; this is its specification). */
rl_status rl_eval_binary_s8(rl_plan *plan, rl_op *op) { return run_tflite_binary(plan, op); }
