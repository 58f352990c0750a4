/* bands.c — banded execution of segments of ops (bands.h). */
#include "bands.h"

/* Bands are one per thread: units (rows, or pixels) that do not split evenly leave a thread idle for part of
 * the segment (3 rows on 2 threads: 2 against 1), where the ops' own tiles split evenly (by output channels
 * when rows are few). Within 1/8 of even, or no bands. */
static int splits_evenly(size_t units, size_t threads) {
    const size_t longest = (units + threads - 1) / threads;
    return units >= threads && 8 * longest * threads <= 9 * units;
}

void rl_offer_elementwise_rows(rl_op *op, const rl_tensor *output,
                               void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count)) {
    const rl_shape *s = &output->shape;
    if (s->rank != 4 || s->dims[0] <= 0 || s->dims[1] <= 0 || s->dims[2] <= 0 || s->dims[3] <= 0) return;
    op->band_rows = (size_t)s->dims[0] * (size_t)s->dims[1];
    op->band_row_pixels = (size_t)s->dims[2];
    op->band_pointwise = 1;
    op->run_rows = run_rows;
}

void rl_band_pixels_of(const rl_shape *s, size_t *rows, size_t *row_pixels) {
    *rows = *row_pixels = 0;
    if (s->rank < 1) return;
    size_t vectors = 1;
    for (int32_t d = 0; d < s->rank; ++d) {
        if (s->dims[d] <= 0) return;
        if (d < s->rank - 1) vectors *= (size_t)s->dims[d];
    }
    if (s->rank == 4) {
        *rows = (size_t)s->dims[0] * (size_t)s->dims[1];
        *row_pixels = (size_t)s->dims[2];
    } else {
        *rows = vectors;
        *row_pixels = 1;
    }
}

void rl_offer_pixel_rows(rl_op *op, const rl_tensor *output,
                         void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count)) {
    size_t rows, row_pixels;
    rl_band_pixels_of(&output->shape, &rows, &row_pixels);
    if (rows * row_pixels < 2) return;
    op->band_rows = rows;
    op->band_row_pixels = row_pixels;
    op->band_pointwise = 1;
    op->run_rows = run_rows;
}

void rl_offer_chunk_rows(rl_op *op, const rl_tensor *output,
                         void (*run_rows)(rl_plan *plan, const rl_op *op, size_t first, size_t count)) {
    size_t rows, row_pixels;
    rl_band_pixels_of(&output->shape, &rows, &row_pixels);
    if (rows == 0) return;
    /* One pixel of its own (a [tokens] vector's is all of it) heads nothing, but joins a segment as chunks. */
    op->band_rows = rows;
    op->band_row_pixels = row_pixels;
    op->band_pointwise = 1;
    op->band_chunks = 1;
    op->run_rows = run_rows;
}

int rl_band_read_of(const rl_broadcast *bc, const int64_t *strides) {
    if (strides[7] != 0 && strides[7] != 1) return 0;
    int whole = 1, rows = 1;
    int64_t step = strides[7] == 1 ? bc->out_dims[7] : 1;
    for (int d = 6; d >= 0; --d) {
        if (bc->out_dims[d] == 1) continue;
        if (strides[d] != 0) whole = 0;
        if (strides[d] != step) rows = 0;
        step *= bc->out_dims[d];
    }
    return whole ? RL_BAND_READ_WHOLE : rows ? RL_BAND_READ_ROWS : 0;
}

size_t rl_band_pixel_elements(const rl_op *op, const rl_tensor *t) {
    return (size_t)rl_shape_count(&t->shape) / (op->band_rows * op->band_row_pixels);
}

/* Whether op i reads what a scattered op of the segment so far wrote (not in the bands' pixel order). */
static int reads_scattered(const rl_plan *plan, int32_t start, int32_t i) {
    const rl_op *op = &plan->ops[i];
    for (int32_t k = 0; k < op->n_inputs; ++k)
        for (int32_t j = start; j < i; ++j)
            for (int32_t o = 0; o < plan->ops[j].n_outputs; ++o)
                if (plan->ops[j].band_scattered && op->inputs[k] >= 0 && plan->ops[j].outputs[o] == op->inputs[k])
                    return 1;
    return 0;
}

/* Whether op i may end the segment's bands scattered (run_rows_scattered): its input splits into the segment's
 * units in whole granules. */
static int joins_scattered(rl_plan *plan, int32_t start, int32_t i) {
    rl_op *head = &plan->ops[start], *op = &plan->ops[i];
    const size_t units = head->band_rows * head->band_row_pixels;
    const int64_t count = op->n_inputs > 0 && op->inputs[0] >= 0 ? rl_shape_count(&rl_input(plan, op, 0)->shape) : 0;
    if (count <= 0 || (size_t)count % units != 0 || ((size_t)count / units) % op->band_scatter_granule != 0 ||
        reads_scattered(plan, start, i))
        return 0;
    op->band_rows = head->band_rows;
    op->band_row_pixels = head->band_row_pixels;
    op->band_scattered = 1;
    return 1;
}

/* Whether the op after op i reads its output and could join a segment that op i heads: then op i heads one rather
 * than ending one scattered (a TRANSPOSE merging heads back, before the output projection; not one splitting
 * them before a BATCH_MATMUL, which heads its own over the heads' rows). */
static int feeds_a_band(const rl_plan *plan, int32_t i) {
    const rl_op *op = &plan->ops[i];
    for (int32_t n = i + 1; n < plan->n_ops; ++n) {
        const rl_op *next = &plan->ops[n];
        if (next->folded) continue;
        if (!next->run_rows || !next->band_pointwise ||
            (!next->band_chunks && (next->band_rows != op->band_rows || next->band_row_pixels != op->band_row_pixels)))
            return 0;
        for (int32_t k = 0; k < next->n_inputs; ++k)
            for (int32_t o = 0; o < plan->ops[i].n_outputs; ++o)
                if (next->inputs[k] >= 0 && next->inputs[k] == plan->ops[i].outputs[o]) return 1;
        return 0;
    }
    return 0;
}

/* The op of the segment from `start`, before op i, that writes `tensor` in its bands (not before them), or -1. */
static int32_t band_writer(const rl_plan *plan, int32_t start, int32_t i, int32_t tensor) {
    if (tensor < 0) return -1;
    for (int32_t j = start; j < i; ++j)
        for (int32_t o = 0; o < plan->ops[j].n_outputs; ++o)
            if (!plan->ops[j].folded && !plan->ops[j].band_before && plan->ops[j].outputs[o] == tensor) return j;
    return -1;
}

/* Whether op j of the segment from `start` (not its head) may run whole before the bands instead of in them: it
 * reads nothing they write but what ops that may do the same write (attention's V, reshaped to [heads, tokens,
 * width] and perhaps dequantized after the scores' product, for P.V to read whole). Its own run, then, on the
 * plan's threads: an op of no scratch (which would be placed for its step alone) and no state. */
static int can_run_before_bands(const rl_plan *plan, int32_t start, int32_t j) {
    const rl_op *op = &plan->ops[j];
    if (j <= start || op->band_scattered || op->arena_scratch_bytes || op->kind->stateful) return 0;
    for (int32_t k = 0; k < op->n_inputs; ++k) {
        const int32_t w = band_writer(plan, start, j, op->inputs[k]);
        if (w >= 0 && !can_run_before_bands(plan, start, w)) return 0;
    }
    return 1;
}

static void run_before_bands(rl_plan *plan, int32_t start, int32_t j) {
    for (int32_t k = 0; k < plan->ops[j].n_inputs; ++k) {
        const int32_t w = band_writer(plan, start, j, plan->ops[j].inputs[k]);
        if (w >= 0) run_before_bands(plan, start, w);
    }
    plan->ops[j].band_before = 1;
}

/* Whether op i may run in the bands of the segment that op `start` heads: it reads per pixel the tensors a band
 * writes (band_pointwise), its pixels are the head's (an element-wise op's output splits into as many equal
 * chunks: a layer norm's [tokens] statistics in a segment of [tokens, channels]), and no op of the segment
 * writes what it reads whole (a vector of channels would be read while other bands still write it). */
static int joins_segment(rl_plan *plan, int32_t start, int32_t i) {
    rl_op *head = &plan->ops[start], *op = &plan->ops[i];
    if (!op->band_pointwise || reads_scattered(plan, start, i)) return 0;
    const size_t units = head->band_rows * head->band_row_pixels;
    if (op->band_chunks) {
        const int64_t count = rl_shape_count(&rl_output(plan, op, 0)->shape);
        if (count <= 0 || (size_t)count % units != 0) return 0;
    } else if ((op->band_rows != head->band_rows || op->band_row_pixels != head->band_row_pixels) &&
               (op->band_whole_rows || op->band_rows * op->band_row_pixels != units)) {
        /* The same pixels counted in other rows pass (a [heads, seq, seq] product's and its [1, heads, seq, seq]
         * view's SOFTMAX): pixel p is vector p of the last axis in both, unless the op needs whole rows. */
        return 0;
    }
    for (int32_t k = 0; k < op->n_inputs; ++k) {
        const int32_t w = op->band_whole_inputs >> k & 1u ? band_writer(plan, start, i, op->inputs[k]) : -1;
        if (w >= 0 && !can_run_before_bands(plan, start, w)) return 0;
    }
    for (int32_t k = 0; k < op->n_inputs; ++k) {
        const int32_t w = op->band_whole_inputs >> k & 1u ? band_writer(plan, start, i, op->inputs[k]) : -1;
        if (w >= 0) run_before_bands(plan, start, w);
    }
    if (op->band_chunks || op->band_rows != head->band_rows) { /* from here on its bands are the segment's pixels */
        op->band_rows = head->band_rows;
        op->band_row_pixels = head->band_row_pixels;
    }
    return 1;
}

void rl_plan_form_segments(rl_plan *plan) {
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        plan->ops[i].segment_last = -1;
        plan->ops[i].segment_bands = 0;
        plan->ops[i].band_scattered = 0;
        plan->ops[i].band_before = 0;
    }
    /* One thread forms only segments that bands keep in cache (band_cache_pixels). */
    const size_t threads = (size_t)rl_threadpool_threads(plan->pool);
    for (int32_t i = 0; i < plan->n_ops; ++i)
        if (plan->ops[i].dynamic) return;
    /* Runs of ops by their shapes alone: a bandable op starts one, pointwise ops of the same pixels extend it. */
    int32_t start = -1;
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *op = &plan->ops[i];
        if (op->folded) continue; /* computed at prepare: nothing runs, nothing to wait for */
        if (start >= 0 && op->run_rows_scattered && !op->arena_scratch_bytes && !feeds_a_band(plan, i) &&
            joins_scattered(plan, start, i)) {
            plan->ops[start].segment_last = i;
            continue;
        }
        /* Offered only with rows and pixels (bands.h); dynamic plans have no runs. An op's arena scratch lives
         * for its own step only, where a later op's output may lie, which other bands may still be writing;
         * scratch a later op reads lives over the segments (arena_scratch_until). */
        if (!op->run_rows || (op->arena_scratch_bytes && !op->band_no_scratch && !op->band_reads_scratch &&
                              op->arena_scratch_until <= i)) {
            start = -1;
            continue;
        }
        if (start >= 0 && joins_segment(plan, start, i)) {
            plan->ops[start].segment_last = i;
            continue;
        }
        start = i;
        op->segment_last = i;
    }
    /* Then each run's bands: whole rows when one of its ops needs them, else pixels; one per thread, or more when
     * an op keeps its bands to band_cache_pixels (a multiple of the threads, within the units). A run of one op,
     * or of one band per thread that would be uneven, runs op by op (each op's own tiles), and so does every run
     * of one band on one thread. */
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        rl_op *head = &plan->ops[i];
        if (head->segment_last < 0) continue;
        int32_t whole_rows = 0;
        size_t cache_pixels = 0;
        for (int32_t j = i; j <= head->segment_last; ++j) {
            const rl_op *op = &plan->ops[j];
            if (op->folded || op->band_before) continue;
            whole_rows |= op->band_whole_rows;
            if (op->band_cache_pixels && (!cache_pixels || op->band_cache_pixels < cache_pixels))
                cache_pixels = op->band_cache_pixels;
        }
        const size_t units = whole_rows ? head->band_rows : head->band_rows * head->band_row_pixels;
        const size_t unit_pixels = whole_rows ? head->band_row_pixels : 1;
        size_t bands = threads;
        if (cache_pixels) {
            const size_t per_band = cache_pixels > unit_pixels ? cache_pixels / unit_pixels : 1;
            const size_t wanted = (units + per_band - 1) / per_band;
            if (wanted > bands) bands = (wanted + threads - 1) / threads * threads;
            if (bands > units) bands = units;
        }
        head->segment_whole_rows = whole_rows;
        head->segment_bands = bands;
        if (head->segment_last == i || (bands == threads && (threads < 2 || !splits_evenly(units, threads))))
            head->segment_last = -1;
    }
    /* An op of a segment that runs op by op after all runs on its own. */
    for (int32_t i = 0; i < plan->n_ops;) {
        const int32_t last = plan->ops[i].segment_last;
        if (last < 0) {
            plan->ops[i++].band_before = 0;
            continue;
        }
        i = last + 1;
    }
}

static void keep_alive(rl_plan *plan, int32_t tensor, int32_t last_step) {
    if (tensor < 0) return;
    rl_tensor *t = &plan->tensors[tensor];
    if (t->storage == RL_STORAGE_ARENA && t->last_op < last_step) t->last_op = last_step;
}

void rl_plan_extend_segment_lifetimes(rl_plan *plan) {
    for (int32_t i = 0; i < plan->n_ops; ++i) {
        const int32_t last = plan->ops[i].segment_last;
        if (last < 0) continue;
        for (int32_t j = i; j <= last; ++j) { /* step j + 1 is op j's; the segment ends at step last + 1 */
            const rl_op *op = &plan->ops[j];
            for (int32_t k = 0; k < op->n_inputs; ++k) keep_alive(plan, op->inputs[k], last + 1);
            for (int32_t k = 0; k < op->n_outputs; ++k) keep_alive(plan, op->outputs[k], last + 1);
        }
    }
}

typedef struct {
    rl_plan *plan;
    int32_t first, last;
    size_t units, unit_pixels, bands;
} rl_segment_job;

/* Band `band` of every op of the segment, in order. */
static void run_band(void *context, size_t band, size_t unused_j, size_t unused_count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_count;
    (void)unused_columns;
    const rl_segment_job *job = (const rl_segment_job *)context;
    const size_t first = job->units * band / job->bands, end = job->units * (band + 1) / job->bands;
    if (end == first) return;
    for (int32_t i = job->first; i <= job->last; ++i) {
        const rl_op *op = &job->plan->ops[i];
        if (op->folded || op->band_before) continue;
        (op->band_scattered ? op->run_rows_scattered : op->run_rows)(job->plan, op, first * job->unit_pixels,
                                                                     (end - first) * job->unit_pixels);
    }
}

rl_status rl_plan_check_segment(rl_plan *plan, int32_t first, int32_t last) {
    for (int32_t i = first; i <= last; ++i) {
        rl_op *op = &plan->ops[i];
        if (op->folded || op->band_before || !op->end_rows) continue; /* one before the bands ran its own run */
        plan->current_op = i; /* the error names this op */
        const rl_status s = op->end_rows(plan, op);
        if (s != RL_OK) return s;
    }
    return RL_OK;
}

rl_status rl_plan_run_segment(rl_plan *plan, int32_t first) {
    const rl_op *head = &plan->ops[first];
    rl_segment_job job = {.plan = plan, .first = first, .last = head->segment_last,
                          .units = head->segment_whole_rows ? head->band_rows : head->band_rows * head->band_row_pixels,
                          .unit_pixels = head->segment_whole_rows ? head->band_row_pixels : 1};
    /* The ops that run before the bands first, in order, then what the band ops take before them (which may read
     * those ops' outputs whole). */
    for (int32_t i = job.first; i <= job.last; ++i) {
        rl_op *op = &plan->ops[i];
        if (op->folded || !op->band_before) continue;
        plan->current_op = i; /* an error names this op */
        const rl_status s = op->run ? op->run(plan, op) : op->kind->eval(plan, op);
        if (s != RL_OK) return s;
    }
    plan->current_op = first;
    for (int32_t i = job.first; i <= job.last; ++i)
        if (!plan->ops[i].folded && !plan->ops[i].band_before && plan->ops[i].begin_rows)
            plan->ops[i].begin_rows(plan, &plan->ops[i]);
    /* One band per thread (or a multiple, to keep bands in cache), each thread's bands the same pixels in every
     * segment, so that a thread mostly reads what it wrote in the segment before (the pool starts thread k on
     * the k-th run of tiles). */
    job.bands = head->segment_bands;
    rl_parallelize_2d_tile_2d(plan->pool, run_band, &job, job.bands, 1, 1, 1);
    return RL_OK;
}
