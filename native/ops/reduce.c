/* reduce.c — MEAN and SUM over constant axes: sums in float, then MEAN multiplies by 1.0f / the count, as
 * XNNPACK does (LiteRT's default Interpreter delegates MEAN to it; a division differs in the last bit when the
 * count is not a power of two); int8: reduce_int8.c. REDUCE_MAX and REDUCE_MIN, float32 and int8. */
#include "bands.h"
#include "conv_gemm.h" /* rl_pool_for, RL_ELEMENT_WORK */
#include "f32_rsum.h"
#include "ops.h"

/* When the reduced axes are one block of adjacent axes, the input is [outer, reduced, inner] and each outer
 * slice is one rdsum micro-kernel call over contiguous rows: the common MEAN over H and W of an NHWC image;
 * when they are the innermost (inner 1), each outer slice is one contiguous row, summed in XNNPACK's rsum
 * order (a layer norm's MEAN over channels). */
typedef struct {
    size_t outer, reduced, inner;
    size_t parts; /* int8, one outer slice: its rows summed in this many parts (rl_s8_reduce_parts) */
    float divisor;
} rl_reduce_state;

/* Outer slices first .. first + count - 1, channels channel .. channel + channels - 1 of each (each summed on
 * its own: any split gives the same bits). */
typedef struct {
    rl_plan *plan;
    const rl_op *op;
} rl_reduce_job;

static void f32_reduce_slices(void *context, size_t first, size_t channel, size_t count, size_t channels) {
    const rl_reduce_job *job = (const rl_reduce_job *)context;
    const rl_reduce_state *st = (const rl_reduce_state *)job->op->state;
    const float *x = (const float *)rl_input(job->plan, job->op, 0)->data;
    float *y = (float *)rl_output(job->plan, job->op, 0)->data;
    for (size_t o = first; o < first + count; ++o) {
        if (st->inner == 1) {
            const float sum = job->plan->kernels->f32_vexp.rsum(st->reduced, x + o * st->reduced);
            y[o] = st->divisor != 1.0f ? sum * (1.0f / st->divisor) : sum;
            continue;
        }
        float *out = y + o * st->inner + channel;
        job->plan->kernels->f32_rdsum(st->reduced, channels, st->inner, x + o * st->reduced * st->inner + channel, out);
        if (st->divisor != 1.0f)
            for (size_t c = 0; c < channels; ++c) out[c] = out[c] * (1.0f / st->divisor);
    }
}

/* int8 sums of a slice go to int32 first: on the stack when the slice's outputs are few (a tile may run on
 * any thread), else in the op's arena scratch, which only the caller's single run uses. */
#define RL_S8_REDUCE_STACK 256
#define RL_S8_PART_ROWS 8

static void s8_reduce_slices(void *context, size_t first, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_reduce_job *job = (const rl_reduce_job *)context;
    const rl_reduce_state *st = (const rl_reduce_state *)job->op->state;
    const rl_s8_reduce_params *p = (const rl_s8_reduce_params *)job->op->scratch;
    const int8_t *x = (const int8_t *)rl_input(job->plan, job->op, 0)->data;
    int8_t *y = (int8_t *)rl_output(job->plan, job->op, 0)->data;
    int32_t stack[RL_S8_REDUCE_STACK];
    int32_t *acc = st->inner <= RL_S8_REDUCE_STACK ? stack : (int32_t *)job->op->arena_scratch;
    for (size_t o = first; o < first + count; ++o) {
        job->plan->kernels->qs8_rdsum(st->reduced, st->inner, x + o * st->reduced * st->inner, acc);
        for (size_t c = 0; c < st->inner; ++c) y[o * st->inner + c] = rl_s8_reduce_output(acc[c], p);
    }
}

/* Outer slices split across the plan's threads (a layer norm's MEAN over channels is one slice per token);
 * the float path is vectorised, the int8 one too on NEON only (counted at four times the work an element). */
static rl_status run_reduce_slices(rl_plan *plan, rl_op *op, rl_tile_2d_fn fn, size_t work_per_element) {
    const rl_reduce_state *st = (const rl_reduce_state *)op->state;
    rl_reduce_job job = {.plan = plan, .op = op};
    rl_threadpool *pool = rl_pool_for(plan, st->outer * st->reduced * st->inner * work_per_element);
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    /* every slice's channels in one tile: fn(context, first, 0, count, inner) */
    rl_parallelize_2d_tile_2d(pool, fn, &job, st->outer, st->inner, pool ? (st->outer + want - 1) / want : st->outer,
                              st->inner);
    return RL_OK;
}

/* Float slices; fewer slices than tiles wanted (a global average pool: one) split their channels too, in
 * blocks of RL_F32_RDSUM_BLOCK: each channel's sum adds its terms from 0.0f in row order on every path
 * (f32_rdsum's contract), so any split gives the same bits. Blocks of one AVX2 vector, not of
 * RL_ELEMENT_BLOCK: MobileNetV3-small's squeeze-and-excite MEANs over 56x56x16 and 14x14x96 had fewer than
 * two 64-channel blocks and ran on the caller alone. */
#define RL_F32_RDSUM_BLOCK 8

static rl_status run_f32_reduce(rl_plan *plan, rl_op *op) {
    const rl_reduce_state *st = (const rl_reduce_state *)op->state;
    rl_threadpool *pool = rl_pool_for(plan, st->outer * st->reduced * st->inner * RL_ELEMENT_WORK);
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    if (!pool || st->outer >= want || st->inner < 2 * RL_F32_RDSUM_BLOCK)
        return run_reduce_slices(plan, op, f32_reduce_slices, RL_ELEMENT_WORK);
    rl_reduce_job job = {.plan = plan, .op = op};
    const size_t per_slice = (want + st->outer - 1) / st->outer;
    const size_t blocks = (st->inner + RL_F32_RDSUM_BLOCK - 1) / RL_F32_RDSUM_BLOCK;
    rl_parallelize_2d_tile_2d(pool, f32_reduce_slices, &job, st->outer, st->inner, 1,
                              RL_F32_RDSUM_BLOCK * ((blocks + per_slice - 1) / per_slice));
    return RL_OK;
}

/* One int8 slice (a global average pool: MEAN over H and W of a batch of one) split by rows instead: part p
 * sums its rows into its own `inner` int32 of the arena scratch, the caller adds the parts. Integer sums, so
 * the result is the one-thread one whatever the split. */
static void s8_reduce_part(void *context, size_t part, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_reduce_job *job = (const rl_reduce_job *)context;
    const rl_reduce_state *st = (const rl_reduce_state *)job->op->state;
    const int8_t *x = (const int8_t *)rl_input(job->plan, job->op, 0)->data;
    int32_t *acc = (int32_t *)job->op->arena_scratch;
    for (size_t p = part; p < part + count; ++p) {
        const size_t first = st->reduced * p / st->parts, end = st->reduced * (p + 1) / st->parts;
        job->plan->kernels->qs8_rdsum(end - first, st->inner, x + first * st->inner, acc + p * st->inner);
    }
}

/* Channels first .. first + count - 1 of the parts' sums added into part 0's and requantized: a pass over each
 * part's row of sums (vectorised, where a loop over the parts per channel was not). */
static void s8_combine_parts(void *context, size_t unused_i, size_t first, size_t unused_rows, size_t count) {
    (void)unused_i;
    (void)unused_rows;
    const rl_reduce_job *job = (const rl_reduce_job *)context;
    const rl_reduce_state *st = (const rl_reduce_state *)job->op->state;
    const rl_s8_reduce_params *p = (const rl_s8_reduce_params *)job->op->scratch;
    int32_t *acc = (int32_t *)job->op->arena_scratch + first;
    int8_t *y = (int8_t *)rl_output(job->plan, job->op, 0)->data + first;
    for (size_t k = 1; k < st->parts; ++k) {
        const int32_t *part = acc + k * st->inner;
        for (size_t c = 0; c < count; ++c) acc[c] += part[c];
    }
    for (size_t c = 0; c < count; ++c) y[c] = rl_s8_reduce_output(acc[c], p);
}

static rl_status run_s8_reduce(rl_plan *plan, rl_op *op) {
    const rl_reduce_state *st = (const rl_reduce_state *)op->state;
    if (st->parts > 1 && rl_pool_for(plan, st->reduced * st->inner * 4 * RL_ELEMENT_WORK)) {
        rl_reduce_job job = {.plan = plan, .op = op};
        rl_parallelize_2d_tile_2d(plan->pool, s8_reduce_part, &job, st->parts, 1, 1, 1);
        /* The combine, split by channels when it is worth a join of its own (EfficientNet-B0's 7x7x1152 global
         * pools: as many sums to add as the parts summed, on the caller alone while the second thread waited). */
        rl_threadpool *pool = rl_pool_for(plan, st->parts * st->inner * RL_ELEMENT_WORK);
        const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
        const size_t blocks = (st->inner + RL_ELEMENT_BLOCK - 1) / RL_ELEMENT_BLOCK;
        rl_parallelize_2d_tile_2d(pool, s8_combine_parts, &job, 1, st->inner, 1,
                                  pool ? RL_ELEMENT_BLOCK * ((blocks + want - 1) / want) : st->inner);
        return RL_OK;
    }
    if (st->inner > RL_S8_REDUCE_STACK) { /* one arena block of sums: the caller alone */
        rl_reduce_job job = {.plan = plan, .op = op};
        s8_reduce_slices(&job, 0, 0, st->outer, 1);
        return RL_OK;
    }
    return run_reduce_slices(plan, op, s8_reduce_slices, 4 * RL_ELEMENT_WORK);
}

/* Banded execution (bands.h) of a float MEAN or SUM over the last axis alone: output value p is the sum of
 * input pixel p. */
static void run_f32_reduce_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    rl_reduce_job job = {.plan = plan, .op = op};
    f32_reduce_slices(&job, first, 0, count, 1);
}

/* int8 likewise: one output per slice, its int32 sum on the stack (an int8 layer norm's MEAN over channels). */
static void run_s8_reduce_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    rl_reduce_job job = {.plan = plan, .op = op};
    s8_reduce_slices(&job, first, 0, count, 1);
}

static rl_status use_middle_axis_driver(rl_plan *plan, rl_op *op, int is_s8) {
    int32_t first = -1, last = -1;
    for (int32_t d = 0; d < 8; ++d) {
        if (!op->prep.reduce_axes[d] || op->prep.dims[d] == 1) continue;
        if (first < 0) first = d;
        last = d;
    }
    size_t outer = 1, reduced = 1, inner = 1;
    for (int32_t d = 0; d < 8; ++d) {
        const size_t n = (size_t)op->prep.dims[d];
        if (first >= 0 && d >= first && d <= last) {
            if (!op->prep.reduce_axes[d] && n != 1) return RL_OK; /* not one block: the reference walks it */
            reduced *= n;
        } else if (first >= 0 && d > last) {
            inner *= n;
        } else {
            outer *= n;
        }
    }
    rl_reduce_state *st = (rl_reduce_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    /* A lone int8 slice of many rows is summed in parts, about RL_TILES_PER_THREAD per thread, of at least
     * RL_S8_PART_ROWS rows each (but one a thread): each part adds a row of sums to combine, and a 7x7 pool in 16
     * parts of 3 rows combined as many sums as it summed. */
    const size_t threads = (size_t)rl_threadpool_threads(plan->pool);
    const size_t most = RL_TILES_PER_THREAD * threads, by_rows = reduced / RL_S8_PART_ROWS;
    const size_t parts = is_s8 && outer == 1 && threads > 1 && reduced >= 2 * threads
                             ? (by_rows < threads ? threads : by_rows < most ? by_rows : most) : 1;
    *st = (rl_reduce_state){.outer = outer, .reduced = reduced, .inner = inner, .parts = parts,
                            .divisor = op->prep.divisor};
    if (is_s8 && (inner > RL_S8_REDUCE_STACK || parts > 1)) rl_request_arena_scratch(op, parts * inner * sizeof(int32_t));
    op->run = is_s8 ? run_s8_reduce : run_f32_reduce;
    /* Bands of the input's pixels (its vectors along the reduced last axis), one output value each, whether the
     * output keeps the axis ([tokens, 1]) or not ([tokens]). */
    const rl_tensor *input = rl_input(plan, op, 0);
    if ((!is_s8 || parts == 1) && inner == 1 && input->shape.rank > 0 &&
        reduced == (size_t)input->shape.dims[input->shape.rank - 1]) {
        rl_offer_pixel_rows(op, input, is_s8 ? run_s8_reduce_rows : run_f32_reduce_rows);
    }
    /* contiguous rows whose squares another op writes for this one alone: one pass (reduce_sumsq.c) */
    return !is_s8 && inner == 1 ? rl_use_f32_sum_of_squares(plan, op, outer, reduced) : RL_OK;
}

static rl_status run_minmax(rl_plan *plan, rl_op *op) {
    xx_reduce_minmax_ref(rl_input(plan, op, 0)->dtype == RL_INT8, op->code == RL_OP_REDUCE_MAX, op->prep.dims,
                         op->prep.reduce_axes, rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data,
                         op->prep.count);
    return RL_OK;
}

rl_status rl_prepare_reduce(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *axes = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const int is_s8 = input->dtype == RL_INT8, is_s16 = input->dtype == RL_INT16;
    const int is_int = input->dtype == RL_INT32 || input->dtype == RL_INT64, is_float = !is_s8 && !is_s16 && !is_int;
    if (is_float && (s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if (is_float && (s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, axes, "axis")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    int32_t reduced[RL_MAX_DIMS] = {0};
    const int64_t n_axes = rl_shape_count(&axes->shape);
    for (int64_t i = 0; i < n_axes; ++i) {
        int64_t a = rl_read_index(axes, i);
        if (a < -rank || a >= rank) return rl_fail(plan, RL_INVALID, "axis %lld is outside a rank-%d input", (long long)a, rank);
        reduced[a < 0 ? a + rank : a] = 1;
    }
    float divisor = 1.0f;
    int64_t reduced_count = 1;
    output->shape.rank = 0;
    for (int32_t d = 0; d < 8; ++d) {
        const int32_t k = d - (8 - rank);
        op->prep.dims[d] = k >= 0 ? input->shape.dims[k] : 1;
        op->prep.reduce_axes[d] = k >= 0 ? reduced[k] : 0;
    }
    for (int32_t d = 0; d < rank; ++d) {
        if (reduced[d]) {
            divisor *= (float)input->shape.dims[d];
            reduced_count *= input->shape.dims[d];
            if (op->params.reducer.keep_dims) output->shape.dims[output->shape.rank++] = 1;
        } else {
            output->shape.dims[output->shape.rank++] = input->shape.dims[d];
        }
    }
    op->prep.divisor = op->code == RL_OP_MEAN ? divisor : 1.0f;
    op->prep.count = rl_shape_count(&output->shape);
    if (is_s16) return rl_prepare_reduce_s16(plan, op, reduced_count); /* reduce_int16.c */
    if (is_int) return rl_prepare_reduce_int(plan, op); /* reduce_int.c */
    if (op->code == RL_OP_REDUCE_MAX || op->code == RL_OP_REDUCE_MIN) {
        if (is_s8 && (s = rl_expect_dtype(plan, output, "output", RL_INT8)) != RL_OK) return s;
        if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
        op->run = run_minmax;
        return RL_OK;
    }
    if (is_s8 && (s = rl_prepare_reduce_s8(plan, op, reduced_count)) != RL_OK) return s;
    s = use_middle_axis_driver(plan, op, is_s8);
    /* The reference's int32 sums, one per output; the driver keeps its own (an op with arena scratch joins no
     * band: bands.h) */
    if (s == RL_OK && is_s8 && !op->run) rl_request_arena_scratch(op, (size_t)op->prep.count * sizeof(int32_t));
    return s;
}

rl_status rl_eval_reduce(rl_plan *plan, rl_op *op) {
    if (op->code == RL_OP_REDUCE_MAX || op->code == RL_OP_REDUCE_MIN) return run_minmax(plan, op);
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_reduce_s8(plan, op);
    plan->kernels->f32_reduce_sum(op->prep.dims, op->prep.reduce_axes, op->prep.divisor,
                                  (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data,
                                  op->prep.count);
    return RL_OK;
}
