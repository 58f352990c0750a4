/* reduce_int16.c — MEAN, SUM, REDUCE_MAX, REDUCE_MIN (and REDUCE_PROD, below) of TFLite's 16x8 mode (int16 in
 * and out, zero points 0) on s16_reduce_ref.c; reduce.c computes the output shape and the 8-D view, then sends
 * int16 here. */
#include <math.h>

#include "ops.h"
#include "s16_elementwise.h"

typedef struct {
    rl_s16_reduce_params p;
} rl_s16_reduce_state;

static rl_status run_reduce_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_reduce_state *st = (const rl_s16_reduce_state *)op->state;
    int64_t dims[RL_MAX_DIMS];
    for (int d = 0; d < RL_MAX_DIMS; ++d) dims[d] = op->prep.dims[d];
    s16_reduce_ref(&st->p, dims, op->prep.reduce_axes, op->prep.count, (const int16_t *)rl_input(plan, op, 0)->data,
                   (int32_t *)op->arena_scratch, (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_reduce_s16(rl_plan *plan, rl_op *op, int64_t reduced_count) {
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, input, "int16 input");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, output, "int16 output");
    if (s != RL_OK) return s;
    if (rl_tensor_zero_point(input, 0) != 0 || rl_tensor_zero_point(output, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 input and output need zero point 0 (have %d and %d)",
                       rl_tensor_zero_point(input, 0), rl_tensor_zero_point(output, 0));
    rl_s16_reduce_state *st = (rl_s16_reduce_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    rl_s16_reduce_params *p = &st->p;
    const float si = rl_tensor_scale(input, 0), so = rl_tensor_scale(output, 0);
    switch (op->code) {
    case RL_OP_REDUCE_MAX:
    case RL_OP_REDUCE_MIN:
        if (si != so)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 %s needs the input's scale on its output (%g and %g)",
                           op->code == RL_OP_REDUCE_MAX ? "REDUCE_MAX" : "REDUCE_MIN", (double)si, (double)so);
        p->kind = op->code == RL_OP_REDUCE_MAX ? RL_S16_REDUCE_MAX : RL_S16_REDUCE_MIN;
        break;
    case RL_OP_SUM:
        p->kind = RL_S16_SUM;
        p->scale = si / so;
        break;
    case RL_OP_MEAN: {
        p->kind = RL_S16_MEAN;
        const double real = (double)si / (double)so;
        if (rl_quantize_multiplier(real, &p->multiplier, &p->shift) || p->shift > 30)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 MEAN input/output scale ratio %g is out of range", real);
        if (reduced_count > 0) { /* TFLite folds 1/count into the multiplier, keeping the shift >= -31 */
            int32_t up = 0;
            while (up < 32 && ((int64_t)1 << (up + 1)) <= reduced_count) ++up;
            if (up > 31 + p->shift) up = 31 + p->shift;
            p->multiplier = (int32_t)(((int64_t)p->multiplier << up) / reduced_count);
            p->shift -= up;
        }
        break;
    }
    default:
        return rl_fail(plan, RL_UNSUPPORTED, "no int16 kernel for this reduction (MEAN, SUM, REDUCE_MAX, REDUCE_MIN)");
    }
    rl_request_arena_scratch(op, sizeof(int32_t) * (size_t)(op->prep.count > 0 ? op->prep.count : 1));
    op->run = run_reduce_s16;
    return RL_OK;
}

typedef struct {
    int64_t dims[8];
    int32_t reduced[8];
    int32_t multiplier, shift;
} rl_s16_reduce_prod_state;

static rl_status run_reduce_prod_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_reduce_prod_state *st = (const rl_s16_reduce_prod_state *)op->state;
    s16_reduce_prod_ref(st->dims, st->reduced, st->multiplier, st->shift, (const int16_t *)rl_input(plan, op, 0)->data,
                        (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* REDUCE_PROD: reduce_prod_any.c computes the output shape and the 8-D view (dims, reduced), then sends int16 here.
 * TFLite's PrepareProd: each step rescales by input_scale / output_scale^(1/n), n the values per product. */
rl_status rl_prepare_reduce_prod_s16(rl_plan *plan, rl_op *op, const int64_t *dims, const int32_t *reduced) {
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    rl_status s = rl_expect_per_tensor_quantization(plan, input, "int16 input");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, output, "int16 output");
    if (s != RL_OK) return s;
    if (rl_tensor_zero_point(input, 0) != 0 || rl_tensor_zero_point(output, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 input and output need zero point 0 (have %d and %d)",
                       rl_tensor_zero_point(input, 0), rl_tensor_zero_point(output, 0));
    const int64_t in_count = rl_shape_count(&input->shape), out_count = rl_shape_count(&output->shape);
    if (in_count == 0 || out_count == 0)
        return rl_fail(plan, RL_UNSUPPORTED, "an empty int16 product (LiteRT leaves its output unwritten)");
    int64_t view[8];
    int32_t marked[8];
    for (int d = 0; d < 8; ++d) {
        view[d] = dims[d];
        marked[d] = reduced[d];
    }
    rl_s16_reduce_prod_state *st = (rl_s16_reduce_prod_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    for (int d = 0; d < 8; ++d) {
        st->dims[d] = view[d];
        st->reduced[d] = marked[d];
    }
    op->run = run_reduce_prod_s16;
    /* A product of one value is that value's integer (s16_reduce_ref.c): no rescale, whatever the scales. */
    if (in_count == out_count) return RL_OK;
    const double step = (double)rl_tensor_scale(input, 0) /
                        pow((double)rl_tensor_scale(output, 0), 1.0 / (double)(in_count / out_count));
    /* TFLite's 64-bit rescale shifts right by 15 - shift: defined up to a shift of 14 (as the int8 kernel's,
     * reduce_prod_any.c) */
    if (rl_quantize_multiplier(step, &st->multiplier, &st->shift) || st->shift < -31 || st->shift > 14)
        return rl_fail(plan, RL_UNSUPPORTED, "the per-step rescale %g (input scale over the output scale's "
                       "%lld-th root) is 2^14 or more, where TFLite's rescale shifts by a negative amount", step,
                       (long long)(in_count / out_count));
    return RL_OK;
}
