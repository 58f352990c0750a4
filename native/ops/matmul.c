/* matmul.c — FULLY_CONNECTED and BATCH_MATMUL: shapes, validation, dispatch. */
#include "batch_matmul_gemm.h"
#include "conv_gemm.h"

rl_status rl_prepare_fully_connected(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 3);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *weights = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    const rl_fully_connected_params *p = &op->params.fully_connected;
    const int quantized = input->dtype == RL_INT8 || weights->dtype == RL_INT8; /* matmul_int8.c checks dtypes */
    if (!quantized) {
        if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
        if ((s = rl_expect_dtype(plan, weights, "weights", RL_FLOAT32)) != RL_OK) return s;
        if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    }
    if (weights->shape.rank != 2)
        return rl_fail(plan, RL_INVALID, "weights must be 2-D [units, depth], have rank %d", weights->shape.rank);
    const int32_t units = weights->shape.dims[0], depth = weights->shape.dims[1];
    const int64_t count = rl_shape_count(&input->shape);
    if (depth == 0 || count % depth != 0)
        return rl_fail(plan, RL_INVALID, "input has %lld elements, not a multiple of the weights' depth %d",
                       (long long)count, depth);
    if (bias) {
        if (!quantized && (s = rl_expect_dtype(plan, bias, "bias", RL_FLOAT32)) != RL_OK) return s;
        if (rl_shape_count(&bias->shape) != units)
            return rl_fail(plan, RL_INVALID, "bias has %lld elements, weights have %d units",
                           (long long)rl_shape_count(&bias->shape), units);
    }
    if ((s = rl_activation_range(plan, p->activation, &op->prep.act_min, &op->prep.act_max)) != RL_OK) return s;
    op->prep.outer = count / depth;
    if (p->keep_num_dims) {
        if (input->shape.rank < 1 || input->shape.dims[input->shape.rank - 1] != depth)
            return rl_fail(plan, RL_INVALID, "keep_num_dims needs the input's last dimension to be %d", depth);
        output->shape = input->shape;
        output->shape.dims[output->shape.rank - 1] = units;
    } else {
        output->shape.rank = 2;
        output->shape.dims[0] = (int32_t)op->prep.outer;
        output->shape.dims[1] = units;
    }
    if (input->dtype == RL_INT16) return rl_prepare_fully_connected_int16(plan, op); /* TFLite's 16x8 mode */
    if (quantized && (s = rl_prepare_fully_connected_quantized(plan, op)) != RL_OK) return s;
    return rl_use_gemm_fully_connected(plan, op, op->prep.outer, units, depth);
}

rl_status rl_eval_fully_connected(rl_plan *plan, rl_op *op) {
    const rl_tensor *weights = rl_input(plan, op, 1), *bias = rl_input(plan, op, 2);
    if (weights->dtype == RL_INT8) return rl_eval_fully_connected_quantized(plan, op);
    plan->kernels->f32_fully_connected(op->prep.outer, weights->shape.dims[1], weights->shape.dims[0],
                                       (const float *)rl_input(plan, op, 0)->data, (const float *)weights->data,
                                       bias ? (const float *)bias->data : NULL, op->prep.act_min,
                                       op->prep.act_max, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* Numpy broadcasting of two shapes into out and the rank-8 strides of bc (0 on broadcast axes). */
rl_status rl_broadcast_shapes(rl_plan *plan, const rl_shape *a, const rl_shape *b, rl_shape *out, rl_broadcast *bc) {
    const int32_t rank = a->rank > b->rank ? a->rank : b->rank;
    int64_t a_dims[8], b_dims[8];
    for (int32_t d = 0; d < 8; ++d) {
        const int32_t ka = d - (8 - a->rank), kb = d - (8 - b->rank);
        a_dims[d] = ka >= 0 ? a->dims[ka] : 1;
        b_dims[d] = kb >= 0 ? b->dims[kb] : 1;
        if (a_dims[d] != b_dims[d] && a_dims[d] != 1 && b_dims[d] != 1)
            return rl_fail(plan, RL_INVALID, "shapes do not broadcast: %lld against %lld at axis %d from the end",
                           (long long)a_dims[d], (long long)b_dims[d], 8 - d);
        bc->out_dims[d] = a_dims[d] == 1 ? b_dims[d] : a_dims[d];
    }
    int64_t sa = 1, sb = 1;
    bc->count = 1;
    for (int32_t d = 7; d >= 0; --d) {
        bc->a_strides[d] = a_dims[d] == 1 ? 0 : sa;
        bc->b_strides[d] = b_dims[d] == 1 ? 0 : sb;
        sa *= a_dims[d];
        sb *= b_dims[d];
        bc->count *= bc->out_dims[d];
    }
    out->rank = rank;
    for (int32_t d = 0; d < rank; ++d) out->dims[d] = (int32_t)bc->out_dims[8 - rank + d];
    bc->contiguous = 0;
    if (sa == bc->count && sb == bc->count) bc->contiguous = 1;
    else if (sa == bc->count && sb == 1) bc->contiguous = 2;
    else if (sb == bc->count && sa == 1) bc->contiguous = 3;
    return RL_OK;
}

rl_status rl_prepare_batch_matmul(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    const int hybrid = a->dtype == RL_FLOAT32 && b->dtype == RL_INT8; /* conv_hybrid.c */
    const int quantized = a->dtype == RL_INT8 || a->dtype == RL_INT16; /* batch_matmul_int8.c checks dtypes */
    if (!quantized && !hybrid) {
        if ((s = rl_expect_dtype(plan, a, "x", RL_FLOAT32)) != RL_OK) return s;
        if ((s = rl_expect_dtype(plan, b, "y", RL_FLOAT32)) != RL_OK) return s;
        if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    }
    if (a->shape.rank < 2 || b->shape.rank < 2)
        return rl_fail(plan, RL_INVALID, "both operands need rank 2 or more (have %d and %d)", a->shape.rank,
                       b->shape.rank);
    const int32_t ra = a->shape.rank, rb = b->shape.rank;
    const int32_t m = p->adj_x ? a->shape.dims[ra - 1] : a->shape.dims[ra - 2];
    const int32_t k = p->adj_x ? a->shape.dims[ra - 2] : a->shape.dims[ra - 1];
    const int32_t kb = p->adj_y ? b->shape.dims[rb - 1] : b->shape.dims[rb - 2];
    const int32_t n = p->adj_y ? b->shape.dims[rb - 2] : b->shape.dims[rb - 1];
    if (k != kb) return rl_fail(plan, RL_INVALID, "x has inner dimension %d, y has %d", k, kb);
    rl_shape batch_a = a->shape, batch_b = b->shape, batch_out;
    batch_a.rank -= 2;
    batch_b.rank -= 2;
    if ((s = rl_broadcast_shapes(plan, &batch_a, &batch_b, &batch_out, &op->prep.bc)) != RL_OK) return s;
    output->shape = batch_out;
    output->shape.dims[output->shape.rank++] = m;
    output->shape.dims[output->shape.rank++] = n;
    op->prep.perm[0] = m;
    op->prep.perm[1] = k;
    op->prep.perm[2] = n;
    if (hybrid) return rl_prepare_batch_matmul_hybrid(plan, op);
    if (quantized) return rl_prepare_batch_matmul_quantized(plan, op);
    return rl_use_gemm_batch_matmul(plan, op, m, k, n);
}

rl_status rl_eval_batch_matmul(rl_plan *plan, rl_op *op) {
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    /* An empty output has nothing to compute, however many (empty) batches it has: a file of 700 bytes may
     * ask for a billion of them, and the kernels walk every one. */
    if (rl_shape_count(&rl_output(plan, op, 0)->shape) == 0) return RL_OK;
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_batch_matmul_quantized(plan, op);
    if (rl_input(plan, op, 1)->dtype == RL_INT8) return rl_eval_batch_matmul_hybrid(plan, op);
    plan->kernels->f32_batch_matmul(&op->prep.bc, op->prep.perm[0], op->prep.perm[1], op->prep.perm[2], p->adj_x,
                                    p->adj_y, (const float *)rl_input(plan, op, 0)->data,
                                    (const float *)rl_input(plan, op, 1)->data,
                                    (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
