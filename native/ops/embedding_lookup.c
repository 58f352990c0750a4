/* embedding_lookup.c — EMBEDDING_LOOKUP: output row i is row ids[i] of the table (litert-torch's form of
 * nn.Embedding). The table's rows are copied as bytes when the output has the table's type (float32, int8
 * with its quantization, any other type); an int8 or uint8 table with a float32 output is TFLite's hybrid form,
 * each value times the table's scale (one per tensor, or one per row). Measured against LiteRT 2.3, whose rules
 * this follows: ids one-dimensional int32 (int64 refused at prepare), a table of rank 2 or more, a hybrid
 * table's zero point 0; an id outside the table fails the invoke naming it (LiteRT: "index out of bounds").
 * LiteRT reads a uint8 hybrid table's bytes as int8 (its EvalHybrid takes int8 data for both), and so does
 * this: the same floats. A table and output of different types that are not the hybrid form LiteRT copies as
 * raw bytes (its output is then meaningless): refused here. */
#include <string.h>

#include "ops.h"

typedef struct {
    int64_t rows, row_elements;
    size_t row_bytes;
    int32_t hybrid;
    const float *row_scales; /* hybrid, one scale per row; NULL: one per tensor */
    float scale;
} rl_embedding_lookup_state;

static rl_status prepare_hybrid(rl_plan *plan, const rl_tensor *table, rl_embedding_lookup_state *st) {
    if (table->q_count < 1)
        return rl_fail(plan, RL_INVALID, "the %s table of a float lookup has no quantization scale",
                       rl_dtype_name(table->dtype));
    if (table->q_zero_points[0] != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "the %s table has zero point %lld; a float lookup needs 0",
                       rl_dtype_name(table->dtype), (long long)table->q_zero_points[0]);
    if (table->q_count > 1 && (table->q_dimension != 0 || table->q_count != table->shape.dims[0]))
        return rl_fail(plan, RL_INVALID, "the table has %d scales on dimension %d; one per row (%d, dimension 0) "
                       "or one in all", table->q_count, table->q_dimension, table->shape.dims[0]);
    for (int32_t c = 0; c < table->q_count; ++c)
        if (!(table->q_scales[c] > 0.0f) || !isfinite(table->q_scales[c]))
            return rl_fail(plan, RL_INVALID, "the table's scale %d is %g, must be positive and finite", c,
                           (double)table->q_scales[c]);
    st->hybrid = 1;
    st->scale = table->q_scales[0];
    st->row_scales = table->q_count > 1 ? table->q_scales : NULL;
    return RL_OK;
}

rl_status rl_prepare_embedding_lookup(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *ids = rl_input(plan, op, 0), *table = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (ids->dtype != RL_INT32)
        return rl_fail(plan, RL_UNSUPPORTED, "ids are %s; LiteRT takes int32 ids only", rl_dtype_name(ids->dtype));
    if (ids->shape.rank != 1) return rl_fail(plan, RL_INVALID, "ids have rank %d, must have rank 1", ids->shape.rank);
    if (table->shape.rank < 2)
        return rl_fail(plan, RL_INVALID, "the table has rank %d, must have rank 2 or more", table->shape.rank);
    rl_embedding_lookup_state *st = (rl_embedding_lookup_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const int hybrid = (table->dtype == RL_INT8 || table->dtype == RL_UINT8) && output->dtype == RL_FLOAT32;
    if (hybrid) {
        if ((s = prepare_hybrid(plan, table, st)) != RL_OK) return s;
    } else if ((s = rl_expect_dtype(plan, output, "output (the table's type)", table->dtype)) != RL_OK) {
        return s;
    }
    st->rows = table->shape.dims[0];
    st->row_elements = rl_shape_count(&table->shape) / (st->rows > 0 ? st->rows : 1);
    if (st->rows == 0) st->row_elements = 0;
    st->row_bytes = (size_t)st->row_elements * rl_dtype_size(table->dtype);
    output->shape = table->shape;
    output->shape.dims[0] = ids->shape.dims[0];
    return RL_OK;
}

rl_status rl_eval_embedding_lookup(rl_plan *plan, rl_op *op) {
    const rl_embedding_lookup_state *st = (const rl_embedding_lookup_state *)op->state;
    const rl_tensor *ids_t = rl_input(plan, op, 0), *table = rl_input(plan, op, 1);
    const int32_t *ids = (const int32_t *)ids_t->data;
    const int64_t count = ids_t->shape.dims[0];
    const char *rows = (const char *)table->data;
    char *out = (char *)rl_output(plan, op, 0)->data;
    for (int64_t i = 0; i < count; ++i) /* every id checked before any row is written */
        if (ids[i] < 0 || ids[i] >= st->rows)
            return rl_fail(plan, RL_INVALID, "id %d (position %lld) is outside the table's rows [0, %lld)", ids[i],
                           (long long)i, (long long)st->rows);
    if (!st->hybrid) {
        for (int64_t i = 0; i < count; ++i) memcpy(out + i * st->row_bytes, rows + ids[i] * st->row_bytes, st->row_bytes);
        return RL_OK;
    }
    float *y = (float *)out;
    for (int64_t i = 0; i < count; ++i) {
        const int8_t *row = (const int8_t *)rows + ids[i] * st->row_elements;
        const float scale = st->row_scales ? st->row_scales[ids[i]] : st->scale;
        /* LiteRT multiplies in double and rounds to float: the exact product of an int8 and a float rounded once,
         * which is the float product. */
        for (int64_t e = 0; e < st->row_elements; ++e) y[i * st->row_elements + e] = (float)row[e] * scale;
    }
    return RL_OK;
}
