/* fill_range.c — the ops that make a tensor from scalars: FILL (dims, value; any dtype, int8 quantized as
 * the value), ZEROS_LIKE (the input's shape and type, zeros: known at prepare, so it folds) and RANGE
 * (start, limit, delta of int32, int64 or float32; its length needs them known at prepare, and it folds). */
#include <math.h>
#include <string.h>

#include "ops.h"

static rl_status run_fill(rl_plan *plan, rl_op *op) {
    const rl_tensor *value = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    const size_t elem = rl_dtype_size(output->dtype);
    const int64_t count = rl_shape_count(&output->shape);
    char *out = (char *)output->data;
    for (int64_t i = 0; i < count; ++i) memcpy(out + (size_t)i * elem, value->data, elem);
    return RL_OK;
}

static rl_status run_zeros_like(rl_plan *plan, rl_op *op) {
    rl_tensor *output = rl_output(plan, op, 0);
    memset(output->data, 0, rl_tensor_bytes(output));
    return RL_OK;
}

static double scalar_of(const rl_tensor *t) {
    if (t->dtype == RL_FLOAT32) return *(const float *)t->data;
    return (double)rl_read_index(t, 0);
}

/* TFLite's RANGE accumulates: value += delta after each element, in the output's type. */
static rl_status run_range(rl_plan *plan, rl_op *op) {
    const rl_tensor *start = rl_input(plan, op, 0), *delta = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    const int64_t count = rl_shape_count(&output->shape);
    if (output->dtype == RL_FLOAT32) {
        float v = *(const float *)start->data, d = *(const float *)delta->data, *out = (float *)output->data;
        for (int64_t i = 0; i < count; ++i, v += d) out[i] = v;
    } else if (output->dtype == RL_INT32) {
        int32_t v = *(const int32_t *)start->data, d = *(const int32_t *)delta->data, *out = (int32_t *)output->data;
        for (int64_t i = 0; i < count; ++i, v += d) out[i] = v;
    } else {
        int64_t v = *(const int64_t *)start->data, d = *(const int64_t *)delta->data, *out = (int64_t *)output->data;
        for (int64_t i = 0; i < count; ++i, v += d) out[i] = v;
    }
    return RL_OK;
}

static rl_status prepare_fill(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *dims = rl_input(plan, op, 0), *value = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_known_indices(plan, dims, "dims")) != RL_OK) return s;
    if (rl_shape_count(&value->shape) != 1) return rl_fail(plan, RL_INVALID, "value must be one element");
    if ((s = rl_expect_dtype(plan, output, "output", value->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", value, "value")) != RL_OK) return s;
    const int64_t rank = rl_shape_count(&dims->shape);
    if (rank > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "dims has %lld values", (long long)rank);
    output->shape.rank = (int32_t)rank;
    for (int32_t d = 0; d < output->shape.rank; ++d) {
        const int64_t v = rl_read_index(dims, d);
        if (v < 0 || v > 2147483647) return rl_fail(plan, RL_INVALID, "dims[%d] is %lld", d, (long long)v);
        output->shape.dims[d] = (int32_t)v;
    }
    op->run = run_fill;
    return RL_OK;
}

static rl_status prepare_range(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 3, 3);
    if (s != RL_OK) return s;
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_tensor *start = rl_input(plan, op, 0), *limit = rl_input(plan, op, 1), *delta = rl_input(plan, op, 2);
    if (start->dtype != RL_FLOAT32 && start->dtype != RL_INT32 && start->dtype != RL_INT64)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s", rl_dtype_name(start->dtype));
    for (int32_t i = 0; i < 3; ++i) {
        const rl_tensor *t = rl_input(plan, op, i);
        if ((s = rl_expect_dtype(plan, t, "input", start->dtype)) != RL_OK) return s;
        if (rl_shape_count(&t->shape) != 1) return rl_fail(plan, RL_INVALID, "input %d must be one value", i);
        if (!rl_known_data(t))
            return rl_fail(plan, RL_UNSUPPORTED, "start, limit and delta must be known when the plan is prepared");
    }
    if ((s = rl_expect_dtype(plan, output, "output", start->dtype)) != RL_OK) return s;
    const double a = scalar_of(start), b = scalar_of(limit), d = scalar_of(delta);
    if (d == 0 || (b > a && d < 0) || (b < a && d > 0))
        return rl_fail(plan, RL_INVALID, "a range from %g to %g by %g", a, b, d);
    double count; /* TFLite's size: in the input's type */
    if (start->dtype == RL_FLOAT32) {
        count = ceilf(fabsf(((float)b - (float)a) / (float)d));
    } else {
        const int64_t span = rl_read_index(limit, 0) - rl_read_index(start, 0), step = rl_read_index(delta, 0);
        count = (double)(((span < 0 ? -span : span) + (step < 0 ? -step : step) - 1) / (step < 0 ? -step : step));
    }
    if (count > 2147483647.0) return rl_fail(plan, RL_INVALID, "a range of %g values", count);
    output->shape.rank = 1;
    output->shape.dims[0] = (int32_t)count;
    op->run = run_range;
    return RL_OK;
}

rl_status rl_prepare_fill_range(rl_plan *plan, rl_op *op) {
    if (op->code == RL_OP_FILL) return prepare_fill(plan, op);
    if (op->code == RL_OP_RANGE) return prepare_range(plan, op);
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    output->shape = input->shape;
    op->run = run_zeros_like;
    return RL_OK;
}

rl_status rl_eval_fill_range(rl_plan *plan, rl_op *op) {
    if (op->code == RL_OP_FILL) return run_fill(plan, op);
    return op->code == RL_OP_RANGE ? run_range(plan, op) : run_zeros_like(plan, op);
}
