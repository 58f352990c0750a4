/* tensor_helpers.c — what every op's prepare uses: failing with a message, dtypes, shapes, an op's tensors,
 * constant operands read at prepare, and fused-activation ranges. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "plan_internal.h"

rl_status rl_fail(rl_plan *plan, rl_status status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(plan->message, sizeof plan->message, format, args);
    va_end(args);
    plan->failed_op = plan->current_op;
    return status;
}

size_t rl_dtype_size(int32_t dtype) {
    switch (dtype) {
    case RL_FLOAT32: case RL_INT32: case RL_RESOURCE: return 4;
    case RL_INT64: case RL_COMPLEX64: return 8;
    case RL_INT16: case RL_FLOAT16: return 2;
    case RL_UINT8: case RL_BOOL: case RL_INT8: return 1;
    }
    return 0;
}

const char *rl_dtype_name(int32_t dtype) {
    switch (dtype) {
    case RL_FLOAT32: return "float32";
    case RL_FLOAT16: return "float16";
    case RL_INT32: return "int32";
    case RL_INT64: return "int64";
    case RL_COMPLEX64: return "complex64";
    case RL_INT16: return "int16";
    case RL_UINT8: return "uint8";
    case RL_BOOL: return "bool";
    case RL_INT8: return "int8";
    case RL_RESOURCE: return "resource";
    }
    return "an unsupported type";
}

/* Saturates at 2^56 elements: a hostile shape's product must not overflow here or in the byte counts made
 * from it (times a dtype size of at most 16), and anything that large is refused later by its size. */
int64_t rl_shape_count(const rl_shape *s) {
    const int64_t cap = (int64_t)1 << 56;
    int64_t n = 1;
    for (int32_t d = 0; d < s->rank; ++d) {
        const int64_t dim = s->dims[d];
        if (dim <= 0) return dim < 0 ? -1 : 0; /* a negative dimension: not a shape (callers refuse it) */
        n = n > cap / dim ? cap : n * dim;
    }
    return n;
}

size_t rl_tensor_bytes(const rl_tensor *t) { return (size_t)rl_shape_count(&t->shape) * rl_dtype_size(t->dtype); }

int rl_shape_equal(const rl_shape *a, const rl_shape *b) {
    if (a->rank != b->rank) return 0;
    for (int32_t d = 0; d < a->rank; ++d)
        if (a->dims[d] != b->dims[d]) return 0;
    return 1;
}

void rl_strides_of(const rl_shape *s, int64_t *strides) {
    int64_t n = 1;
    for (int32_t d = s->rank - 1; d >= 0; --d) {
        strides[d] = n;
        n *= s->dims[d];
    }
}

rl_tensor *rl_input(rl_plan *plan, const rl_op *op, int32_t i) {
    if (i >= op->n_inputs || op->inputs[i] < 0) return NULL;
    return &plan->tensors[op->inputs[i]];
}

rl_tensor *rl_output(rl_plan *plan, const rl_op *op, int32_t i) {
    return &plan->tensors[op->outputs[i]];
}

const void *rl_known_data(const rl_tensor *t) {
    if (t->storage == RL_STORAGE_CONSTANT || t->storage == RL_STORAGE_FOLDED) return t->data;
    return NULL;
}

int64_t rl_read_index(const rl_tensor *t, int64_t i) {
    if (t->dtype == RL_INT64) return ((const int64_t *)t->data)[i];
    return ((const int32_t *)t->data)[i];
}

rl_status rl_known_indices(rl_plan *plan, const rl_tensor *t, const char *what) {
    if (!t) return rl_fail(plan, RL_INVALID, "the %s input is missing", what);
    if (t->dtype != RL_INT32 && t->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "%s must be int32 or int64, not %s", what, rl_dtype_name(t->dtype));
    if (!rl_known_data(t))
        return rl_fail(plan, RL_UNSUPPORTED, "%s must be known when the plan is prepared (constant)", what);
    return RL_OK;
}

rl_status rl_known_axis(rl_plan *plan, const rl_tensor *axis_t, int32_t rank, int32_t *axis) {
    rl_status s = rl_known_indices(plan, axis_t, "axis");
    if (s != RL_OK) return s;
    if (rl_shape_count(&axis_t->shape) != 1) return rl_fail(plan, RL_INVALID, "axis must be one value");
    const int64_t a = rl_read_index(axis_t, 0);
    if (a < -rank || a >= rank)
        return rl_fail(plan, RL_INVALID, "axis %lld is outside a rank-%d input", (long long)a, rank);
    *axis = (int32_t)(a < 0 ? a + rank : a);
    return RL_OK;
}

rl_status rl_expect_inputs(rl_plan *plan, const rl_op *op, int32_t min_count, int32_t max_count) {
    if (op->n_inputs < min_count || op->n_inputs > max_count)
        return rl_fail(plan, RL_INVALID, "takes %d to %d inputs, has %d", min_count, max_count, op->n_inputs);
    for (int32_t i = 0; i < min_count; ++i)
        if (op->inputs[i] < 0) return rl_fail(plan, RL_INVALID, "input %d is required", i);
    if (op->n_outputs < 1) return rl_fail(plan, RL_INVALID, "has no output");
    return RL_OK;
}

rl_status rl_expect_dtype(rl_plan *plan, const rl_tensor *t, const char *what, int32_t dtype) {
    if (t->dtype != dtype)
        return rl_fail(plan, RL_INVALID, "%s is %s, expected %s", what, rl_dtype_name(t->dtype),
                       rl_dtype_name(dtype));
    return RL_OK;
}

rl_status rl_activation_range(rl_plan *plan, int32_t activation, float *lo, float *hi) {
    switch (activation) {
    case RL_ACT_NONE: *lo = -3.40282347e38f; *hi = 3.40282347e38f; return RL_OK;
    case RL_ACT_RELU: *lo = 0.0f; *hi = 3.40282347e38f; return RL_OK;
    case RL_ACT_RELU_N1_TO_1: *lo = -1.0f; *hi = 1.0f; return RL_OK;
    case RL_ACT_RELU6: *lo = 0.0f; *hi = 6.0f; return RL_OK;
    }
    return rl_fail(plan, RL_UNSUPPORTED, "fused activation %d is not supported", activation);
}
