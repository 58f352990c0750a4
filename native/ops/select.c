/* select.c — SELECT_V2 (and SELECT): out = condition ? x : y, the three broadcast together as numpy does, any
 * dtype for x and y (int8 keeps its quantization: values are chosen, never rescaled). TF1's SELECT also takes a
 * rank-1 condition over x's first axis (a row each): it is broadcast as [N, 1, ..., 1].
 *
 * Axes are merged at prepare wherever all three operands step through them as through one axis (drop the
 * size-1 axes, then join neighbours), so the run is a loop over rows of the last merged axis: a causal mask's
 * [1, 1, S, 1] condition over [1, 1, S, D] scores with a scalar fill is S rows, each one memcpy or one fill,
 * not an index walk of 8 axes and a memcpy per element. */
#include <string.h>

#include "ops.h"

typedef struct {
    int32_t rank;            /* merged axes, 1 .. 8 */
    int64_t dims[8];
    int64_t strides[3][8];   /* condition, x, y, in elements: 0 on broadcast axes */
    size_t elem;
    int64_t count;
} rl_select_state;

RL_STATIC_ASSERT(sizeof(rl_select_state) <= 512, "rl_select_state is a small struct");

/* out[j] = src[j * step], j < n: a copy (step 1) or a fill (step 0), elements of elem bytes. */
static void copy_or_fill(char *out, const char *src, int64_t step, int64_t n, size_t elem) {
    if (step == 1) {
        memcpy(out, src, (size_t)n * elem);
    } else if (elem == 4) { /* constant-size memcpy: one load and store, whatever the alignment */
        for (int64_t j = 0; j < n; ++j) memcpy(out + j * 4, src, 4);
    } else {
        for (int64_t j = 0; j < n; ++j) memcpy(out + j * (int64_t)elem, src + j * step * (int64_t)elem, elem);
    }
}

/* The row loop for one element size; the memcpys of a constant size compile to plain loads and stores. */
#define SELECT_ROW(name, T)                                                                                 \
    static void name(char *out, const uint8_t *c, int64_t sc, const char *x, int64_t sx, const char *y,      \
                     int64_t sy, int64_t n) {                                                                \
        for (int64_t j = 0; j < n; ++j) {                                                                    \
            T v;                                                                                             \
            memcpy(&v, c[j * sc] ? x + j * sx * (int64_t)sizeof(T) : y + j * sy * (int64_t)sizeof(T),       \
                   sizeof(T));                                                                               \
            memcpy(out + j * (int64_t)sizeof(T), &v, sizeof(T));                                             \
        }                                                                                                    \
    }
SELECT_ROW(select_row_1, uint8_t)
SELECT_ROW(select_row_2, uint16_t)
SELECT_ROW(select_row_4, uint32_t)
SELECT_ROW(select_row_8, uint64_t)
#undef SELECT_ROW

static void select_row_any(char *out, const uint8_t *c, int64_t sc, const char *x, int64_t sx, const char *y,
                           int64_t sy, int64_t n, size_t elem) {
    for (int64_t j = 0; j < n; ++j)
        memcpy(out + j * (int64_t)elem, c[j * sc] ? x + j * sx * (int64_t)elem : y + j * sy * (int64_t)elem, elem);
}

static rl_status run_select(rl_plan *plan, rl_op *op) {
    const rl_select_state *st = (const rl_select_state *)op->state;
    const uint8_t *cond = (const uint8_t *)rl_input(plan, op, 0)->data;
    const char *x = (const char *)rl_input(plan, op, 1)->data, *y = (const char *)rl_input(plan, op, 2)->data;
    char *out = (char *)rl_output(plan, op, 0)->data;
    if (st->count == 0) return RL_OK;
    const int32_t last = st->rank - 1;
    const int64_t n = st->dims[last], sc = st->strides[0][last], sx = st->strides[1][last],
                  sy = st->strides[2][last];
    const size_t elem = st->elem;
    int64_t index[8] = {0};
    do {
        int64_t ic = 0, ix = 0, iy = 0;
        for (int32_t d = 0; d < last; ++d) {
            ic += index[d] * st->strides[0][d];
            ix += index[d] * st->strides[1][d];
            iy += index[d] * st->strides[2][d];
        }
        const char *xr = x + ix * (int64_t)elem, *yr = y + iy * (int64_t)elem;
        if (sc == 0) { /* one choice for the whole row */
            if (cond[ic]) copy_or_fill(out, xr, sx, n, elem);
            else copy_or_fill(out, yr, sy, n, elem);
        } else {
            switch (elem) {
            case 1: select_row_1(out, cond + ic, sc, xr, sx, yr, sy, n); break;
            case 2: select_row_2(out, cond + ic, sc, xr, sx, yr, sy, n); break;
            case 4: select_row_4(out, cond + ic, sc, xr, sx, yr, sy, n); break;
            case 8: select_row_8(out, cond + ic, sc, xr, sx, yr, sy, n); break;
            default: select_row_any(out, cond + ic, sc, xr, sx, yr, sy, n, elem); break;
            }
        }
        out += n * (int64_t)elem;
    } while (rl_next_index(last, st->dims, index));
    return RL_OK;
}

/* Drops the size-1 axes and joins each axis into the one before it where every operand's step over the pair
 * is one step over a single axis (both broadcast, or the outer stride the inner's times its size). */
static void merge_axes(const int64_t dims[8], const int64_t strides[3][8], rl_select_state *st) {
    int32_t rank = 0;
    for (int32_t d = 0; d < 8; ++d) {
        if (dims[d] == 1) continue;
        if (rank > 0) {
            const int32_t k = rank - 1;
            int joins = 1;
            for (int32_t i = 0; i < 3; ++i)
                if (st->strides[i][k] != strides[i][d] * dims[d]) joins = 0;
            if (joins) {
                st->dims[k] *= dims[d];
                for (int32_t i = 0; i < 3; ++i) st->strides[i][k] = strides[i][d];
                continue;
            }
        }
        st->dims[rank] = dims[d];
        for (int32_t i = 0; i < 3; ++i) st->strides[i][rank] = strides[i][d];
        ++rank;
    }
    if (rank == 0) { /* one element */
        st->dims[0] = 1;
        for (int32_t i = 0; i < 3; ++i) st->strides[i][0] = 0;
        rank = 1;
    }
    st->rank = rank;
}

rl_status rl_prepare_select(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 3, 3);
    if (s != RL_OK) return s;
    const rl_tensor *cond = rl_input(plan, op, 0), *x = rl_input(plan, op, 1), *y = rl_input(plan, op, 2);
    rl_tensor *out = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, cond, "condition", RL_BOOL)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, y, "y", x->dtype)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, out, "output", x->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, x, "x", out, "output")) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, y, "y", out, "output")) != RL_OK) return s;
    rl_shape cond_shape = cond->shape;
    if (op->code == RL_OP_SELECT) {
        if (!rl_shape_equal(&x->shape, &y->shape) || !(rl_shape_equal(&cond->shape, &x->shape) || cond->shape.rank == 1))
            return rl_fail(plan, RL_INVALID, "SELECT takes x and y of one shape and a condition of that shape or "
                                             "one value per row (SELECT_V2 broadcasts)");
        if (cond->shape.rank == 1 && x->shape.rank > 1) {
            if (cond->shape.dims[0] != x->shape.dims[0])
                return rl_fail(plan, RL_INVALID, "SELECT's rank-1 condition has %d values for %d rows",
                               (int)cond->shape.dims[0], (int)x->shape.dims[0]);
            cond_shape.rank = x->shape.rank;
            for (int32_t d = 1; d < x->shape.rank; ++d) cond_shape.dims[d] = 1;
        }
    }
    rl_broadcast xy, all;
    rl_shape xy_shape, out_shape;
    if ((s = rl_broadcast_shapes(plan, &x->shape, &y->shape, &xy_shape, &xy)) != RL_OK) return s;
    if ((s = rl_broadcast_shapes(plan, &cond_shape, &xy_shape, &out_shape, &all)) != RL_OK) return s;
    out->shape = out_shape;
    rl_select_state *st = (rl_select_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    /* Each operand's strides against the output: broadcasting it with the output's shape gives them. */
    int64_t strides[3][8];
    for (int32_t i = 0; i < 3; ++i) {
        rl_broadcast with_output;
        rl_shape same;
        const rl_shape *operand = i == 0 ? &cond_shape : &rl_input(plan, op, i)->shape;
        if ((s = rl_broadcast_shapes(plan, operand, &out_shape, &same, &with_output)) != RL_OK) return s;
        for (int32_t d = 0; d < 8; ++d) strides[i][d] = with_output.a_strides[d];
    }
    merge_axes(all.out_dims, (const int64_t(*)[8])strides, st);
    st->elem = rl_dtype_size(x->dtype);
    st->count = rl_shape_count(&out_shape);
    op->run = run_select;
    return RL_OK;
}

rl_status rl_eval_select(rl_plan *plan, rl_op *op) { return run_select(plan, op); }
