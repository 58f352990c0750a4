/* select.c — SELECT_V2 (and SELECT): out = condition ? x : y, the three broadcast together as numpy does, any
 * dtype for x and y (int8 keeps its quantization: values are chosen, never rescaled). TF1's SELECT also takes a
 * rank-1 condition over x's first axis (a row each): it is broadcast as [N, 1, ..., 1]. */
#include <string.h>

#include "ops.h"

typedef struct {
    int64_t out_dims[8];
    int64_t strides[3][8]; /* condition, x, y: 0 on broadcast axes */
    size_t elem;
    int64_t count;
} rl_select_state;

RL_STATIC_ASSERT(sizeof(rl_select_state) <= 512, "rl_select_state is a small struct");

static rl_status run_select(rl_plan *plan, rl_op *op) {
    const rl_select_state *st = (const rl_select_state *)op->state;
    const uint8_t *cond = (const uint8_t *)rl_input(plan, op, 0)->data;
    const char *x = (const char *)rl_input(plan, op, 1)->data, *y = (const char *)rl_input(plan, op, 2)->data;
    char *out = (char *)rl_output(plan, op, 0)->data;
    if (st->count == 0) return RL_OK;
    int64_t index[8] = {0};
    for (int64_t i = 0; i < st->count; ++i) {
        int64_t ic = 0, ix = 0, iy = 0;
        for (int d = 0; d < 8; ++d) {
            ic += index[d] * st->strides[0][d];
            ix += index[d] * st->strides[1][d];
            iy += index[d] * st->strides[2][d];
        }
        memcpy(out + (size_t)i * st->elem, cond[ic] ? x + (size_t)ix * st->elem : y + (size_t)iy * st->elem, st->elem);
        rl_next_index(8, st->out_dims, index);
    }
    return RL_OK;
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
    for (int32_t d = 0; d < 8; ++d) st->out_dims[d] = all.out_dims[d];
    /* Each operand's strides against the output: broadcasting it with the output's shape gives them. */
    for (int32_t i = 0; i < 3; ++i) {
        rl_broadcast with_output;
        rl_shape same;
        const rl_shape *operand = i == 0 ? &cond_shape : &rl_input(plan, op, i)->shape;
        if ((s = rl_broadcast_shapes(plan, operand, &out_shape, &same, &with_output)) != RL_OK) return s;
        for (int32_t d = 0; d < 8; ++d) st->strides[i][d] = with_output.a_strides[d];
    }
    st->elem = rl_dtype_size(x->dtype);
    st->count = rl_shape_count(&out_shape);
    op->run = run_select;
    return RL_OK;
}

rl_status rl_eval_select(rl_plan *plan, rl_op *op) { return run_select(plan, op); }
