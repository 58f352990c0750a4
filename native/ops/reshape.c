/* reshape.c — RESHAPE, SQUEEZE, EXPAND_DIMS (copies with a new shape) and SHAPE (known at prepare). */
#include <string.h>

#include "bands.h"
#include "ops.h"

static rl_status same_dtype(rl_plan *plan, const rl_tensor *input, const rl_tensor *output) {
    return rl_expect_dtype(plan, output, "output", input->dtype);
}

rl_status rl_eval_copy(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    const size_t bytes = rl_tensor_bytes(input);
    /* An empty tensor may have no memory at all: memcpy from NULL is undefined even for 0 bytes. */
    if (bytes && output->data != input->data) memcpy(output->data, input->data, bytes);
    return RL_OK;
}

/* Banded execution (bands.h): a view's chunk is the same bytes of its input, copied only when the view has a
 * block of its own (a graph output); usually it shares its input's and a band does nothing. */
static void run_copy_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if (output->data == input->data) return;
    const size_t pixel = rl_tensor_bytes(input) / (op->band_rows * op->band_row_pixels);
    memcpy((char *)output->data + first * pixel, (const char *)input->data + first * pixel, count * pixel);
}

rl_status rl_prepare_reshape(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 2);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *shape = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if ((s = same_dtype(plan, input, output)) != RL_OK) return s;
    rl_shape target;
    if (shape && !(shape->shape.rank == 1 && shape->shape.dims[0] == 0 && op->params.reshape.count > 0)) {
        const int64_t n = rl_shape_count(&shape->shape);
        /* An empty shape vector needs no data: the output is a scalar (TFLite reads the vector as it is). */
        if (n != 0 && (s = rl_known_indices(plan, shape, "shape")) != RL_OK) return s;
        if (n > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "target rank %lld is above %d", (long long)n, RL_MAX_DIMS);
        target.rank = (int32_t)n;
        for (int32_t d = 0; d < target.rank; ++d) target.dims[d] = (int32_t)rl_read_index(shape, d);
    } else if (op->params.reshape.count >= 0) {
        target.rank = op->params.reshape.count;
        for (int32_t d = 0; d < target.rank; ++d) target.dims[d] = op->params.reshape.shape[d];
    } else {
        return rl_fail(plan, RL_INVALID, "has neither a shape input nor a new_shape option");
    }
    int32_t unknown = -1;
    int64_t known = 1;
    for (int32_t d = 0; d < target.rank; ++d) {
        if (target.dims[d] == -1) {
            if (unknown >= 0) return rl_fail(plan, RL_INVALID, "the target shape has more than one -1");
            unknown = d;
        } else if (target.dims[d] < 0) {
            return rl_fail(plan, RL_INVALID, "target dimension %d is %d", d, target.dims[d]);
        } else {
            known *= target.dims[d];
        }
    }
    const int64_t count = rl_shape_count(&input->shape);
    if (unknown >= 0) {
        if (known == 0 || count % known != 0)
            return rl_fail(plan, RL_INVALID, "cannot reshape %lld elements with -1 and %lld others", (long long)count,
                           (long long)known);
        target.dims[unknown] = (int32_t)(count / known);
        known = count;
    }
    if (known != count)
        return rl_fail(plan, RL_INVALID, "cannot reshape %lld elements into %lld", (long long)count, (long long)known);
    output->shape = target;
    rl_offer_chunk_rows(op, output, run_copy_rows);
    return RL_OK;
}

rl_status rl_prepare_squeeze(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if ((s = same_dtype(plan, input, output)) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    int32_t drop[RL_MAX_DIMS] = {0};
    const rl_squeeze_params *p = &op->params.squeeze;
    for (int32_t i = 0; i < p->count; ++i) {
        int32_t a = p->dims[i];
        if (a < -rank || a >= rank) return rl_fail(plan, RL_INVALID, "axis %d is outside a rank-%d input", a, rank);
        a = a < 0 ? a + rank : a;
        if (input->shape.dims[a] != 1)
            return rl_fail(plan, RL_INVALID, "cannot squeeze axis %d of size %d", a, input->shape.dims[a]);
        drop[a] = 1;
    }
    output->shape.rank = 0;
    for (int32_t d = 0; d < rank; ++d) {
        const int squeeze = p->count > 0 ? drop[d] : input->shape.dims[d] == 1;
        if (!squeeze) output->shape.dims[output->shape.rank++] = input->shape.dims[d];
    }
    rl_offer_chunk_rows(op, output, run_copy_rows);
    return RL_OK;
}

rl_status rl_prepare_expand_dims(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *axis = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if ((s = same_dtype(plan, input, output)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, axis, "axis")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    if (rank + 1 > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "output rank is above %d", RL_MAX_DIMS);
    int64_t a = rl_read_index(axis, 0);
    if (a < -rank - 1 || a > rank) return rl_fail(plan, RL_INVALID, "axis %lld is outside [-%d, %d]", (long long)a, rank + 1, rank);
    if (a < 0) a += rank + 1;
    output->shape.rank = rank + 1;
    for (int32_t d = 0, k = 0; d < rank + 1; ++d) output->shape.dims[d] = d == a ? 1 : input->shape.dims[k++];
    rl_offer_chunk_rows(op, output, run_copy_rows);
    return RL_OK;
}

rl_status rl_prepare_shape(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if (output->dtype != RL_INT32 && output->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "output must be int32 or int64, is %s", rl_dtype_name(output->dtype));
    output->shape.rank = 1;
    output->shape.dims[0] = input->shape.rank;
    return RL_OK;
}

rl_status rl_eval_shape(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    for (int32_t d = 0; d < input->shape.rank; ++d) {
        if (output->dtype == RL_INT64) ((int64_t *)output->data)[d] = input->shape.dims[d];
        else ((int32_t *)output->data)[d] = input->shape.dims[d];
    }
    return RL_OK;
}
