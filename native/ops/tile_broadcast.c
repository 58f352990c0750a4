/* tile_broadcast.c — TILE (input repeated `multiples` times along each axis) and BROADCAST_TO (input
 * repeated to a shape, numpy's rule), any dtype; int8 keeps its quantization. Both need their second input
 * known when the plan is prepared: it gives the output's shape. */
#include "ops.h"

typedef struct {
    int32_t rank;
    int64_t in_dims[8], multiples[8]; /* TILE */
    int64_t out_dims[8], strides[8];  /* BROADCAST_TO: rank 8, 0 on repeated axes */
    size_t elem;
} rl_tile_state;

RL_STATIC_ASSERT(sizeof(rl_tile_state) <= 512, "rl_tile_state is a small struct");

static rl_status run_tile(rl_plan *plan, rl_op *op) {
    const rl_tile_state *st = (const rl_tile_state *)op->state;
    if (op->code == RL_OP_TILE)
        xx_tile_ref(st->rank, st->in_dims, st->multiples, st->elem, rl_input(plan, op, 0)->data,
                    rl_output(plan, op, 0)->data);
    else
        xx_broadcast_to_ref(st->out_dims, st->strides, st->elem, rl_input(plan, op, 0)->data,
                            rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_tile(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *second = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    const int tile = op->code == RL_OP_TILE;
    if ((s = rl_known_indices(plan, second, tile ? "multiples" : "shape")) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, output, "output", input, "input")) != RL_OK) return s;
    const int64_t n = rl_shape_count(&second->shape);
    rl_tile_state *st = (rl_tile_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->elem = rl_dtype_size(input->dtype);
    st->rank = input->shape.rank;
    if (tile) {
        if (n != input->shape.rank)
            return rl_fail(plan, RL_INVALID, "multiples has %lld values for a rank-%d input", (long long)n,
                           input->shape.rank);
        output->shape.rank = input->shape.rank;
        for (int32_t d = 0; d < input->shape.rank; ++d) {
            const int64_t m = rl_read_index(second, d);
            if (m < 0 || (double)m * input->shape.dims[d] > 2147483647.0)
                return rl_fail(plan, RL_INVALID, "multiples[%d] is %lld", d, (long long)m);
            st->in_dims[d] = input->shape.dims[d];
            st->multiples[d] = m;
            output->shape.dims[d] = (int32_t)(input->shape.dims[d] * m);
        }
    } else {
        if (n < input->shape.rank || n > RL_MAX_DIMS)
            return rl_fail(plan, RL_INVALID, "shape has %lld values for a rank-%d input", (long long)n,
                           input->shape.rank);
        rl_shape target = {.rank = (int32_t)n}, same;
        for (int32_t d = 0; d < target.rank; ++d) {
            const int64_t v = rl_read_index(second, d);
            if (v < 0 || v > 2147483647) return rl_fail(plan, RL_INVALID, "shape[%d] is %lld", d, (long long)v);
            target.dims[d] = (int32_t)v;
        }
        rl_broadcast bc;
        if ((s = rl_broadcast_shapes(plan, &input->shape, &target, &same, &bc)) != RL_OK) return s;
        if (!rl_shape_equal(&same, &target))
            return rl_fail(plan, RL_INVALID, "the input does not broadcast to the shape without growing it");
        output->shape = target;
        for (int32_t d = 0; d < 8; ++d) {
            st->out_dims[d] = bc.out_dims[d];
            st->strides[d] = bc.a_strides[d];
        }
    }
    op->run = run_tile;
    return RL_OK;
}

rl_status rl_eval_tile(rl_plan *plan, rl_op *op) { return run_tile(plan, op); }
