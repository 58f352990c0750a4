/* reduce.c — MEAN and SUM over constant axes: sums in float, then MEAN multiplies by 1.0f / the count, as
 * XNNPACK does (LiteRT's default Interpreter delegates MEAN to it; a division differs in the last bit when the
 * count is not a power of two); int8: reduce_int8.c. REDUCE_MAX and REDUCE_MIN, float32 and int8. */
#include "f32_rsum.h"
#include "ops.h"

/* When the reduced axes are one block of adjacent axes, the input is [outer, reduced, inner] and each outer
 * slice is one rdsum micro-kernel call over contiguous rows: the common MEAN over H and W of an NHWC image;
 * when they are the innermost (inner 1), each outer slice is one contiguous row, summed in XNNPACK's rsum
 * order (a layer norm's MEAN over channels). */
typedef struct {
    size_t outer, reduced, inner;
    float divisor;
} rl_reduce_state;

static rl_status run_f32_reduce(rl_plan *plan, rl_op *op) {
    const rl_reduce_state *st = (const rl_reduce_state *)op->state;
    const float *x = (const float *)rl_input(plan, op, 0)->data;
    float *y = (float *)rl_output(plan, op, 0)->data;
    if (st->inner == 1) {
        for (size_t o = 0; o < st->outer; ++o) {
            const float sum = plan->kernels->f32_vexp.rsum(st->reduced, x + o * st->reduced);
            y[o] = st->divisor != 1.0f ? sum * (1.0f / st->divisor) : sum;
        }
        return RL_OK;
    }
    for (size_t o = 0; o < st->outer; ++o) {
        float *out = y + o * st->inner;
        f32_rdsum__scalar(st->reduced, st->inner, x + o * st->reduced * st->inner, out);
        if (st->divisor != 1.0f)
            for (size_t c = 0; c < st->inner; ++c) out[c] = out[c] * (1.0f / st->divisor);
    }
    return RL_OK;
}

static rl_status run_s8_reduce(rl_plan *plan, rl_op *op) {
    const rl_reduce_state *st = (const rl_reduce_state *)op->state;
    const rl_s8_reduce_params *p = (const rl_s8_reduce_params *)op->scratch;
    const int8_t *x = (const int8_t *)rl_input(plan, op, 0)->data;
    int8_t *y = (int8_t *)rl_output(plan, op, 0)->data;
    int32_t *acc = (int32_t *)op->arena_scratch;
    for (size_t o = 0; o < st->outer; ++o) {
        plan->kernels->qs8_rdsum(st->reduced, st->inner, x + o * st->reduced * st->inner, acc);
        for (size_t c = 0; c < st->inner; ++c) y[o * st->inner + c] = rl_s8_reduce_output(acc[c], p);
    }
    return RL_OK;
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
    *st = (rl_reduce_state){.outer = outer, .reduced = reduced, .inner = inner, .divisor = op->prep.divisor};
    if (is_s8) rl_request_arena_scratch(op, inner * sizeof(int32_t));
    op->run = is_s8 ? run_s8_reduce : run_f32_reduce;
    return RL_OK;
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
    if (!is_s8 && !is_s16 && (s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if (!is_s8 && !is_s16 && (s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
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
    if (op->code == RL_OP_REDUCE_MAX || op->code == RL_OP_REDUCE_MIN) {
        if (is_s8 && (s = rl_expect_dtype(plan, output, "output", RL_INT8)) != RL_OK) return s;
        if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
        op->run = run_minmax;
        return RL_OK;
    }
    if (is_s8 && (s = rl_prepare_reduce_s8(plan, op, reduced_count)) != RL_OK) return s;
    return use_middle_axis_driver(plan, op, is_s8);
}

rl_status rl_eval_reduce(rl_plan *plan, rl_op *op) {
    if (op->code == RL_OP_REDUCE_MAX || op->code == RL_OP_REDUCE_MIN) return run_minmax(plan, op);
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_reduce_s8(plan, op);
    plan->kernels->f32_reduce_sum(op->prep.dims, op->prep.reduce_axes, op->prep.divisor,
                                  (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data,
                                  op->prep.count);
    return RL_OK;
}
