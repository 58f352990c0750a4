/* reduce_prod_any.c — REDUCE_PROD (float32, int32, and int8 as LiteRT's builtin kernel), REDUCE_ANY and
 * REDUCE_ALL (bool) over constant axes, keep_dims as the options say; the input walked in order
 * (xx_reduce_prod_any_ref.c, s8_reduce_prod_ref.c). */
#include <math.h>

#include "ops.h"
#include "quant.h"

typedef struct {
    int64_t dims[8];
    int32_t reduced[8];
    int64_t out_count;
    int32_t int8;
    int32_t bool_all;
    rl_s8_prod_params q;
} rl_reduce_prod_any_state;

RL_STATIC_ASSERT(sizeof(rl_reduce_prod_any_state) <= 160, "rl_reduce_prod_any_state is a small struct");

static rl_status run_reduce_prod_any(rl_plan *plan, rl_op *op) {
    const rl_reduce_prod_any_state *st = (const rl_reduce_prod_any_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    if (st->int8) {
        s8_reduce_prod_ref(st->dims, st->reduced, &st->q, (const int8_t *)input->data,
                           (int8_t *)rl_output(plan, op, 0)->data);
        return RL_OK;
    }
    xx_reduce_prod_any_ref(input->dtype, st->bool_all, st->dims, st->reduced, input->data,
                           rl_output(plan, op, 0)->data, st->out_count);
    return RL_OK;
}

/* TFLite's PrepareProd: each step rescales by input_scale / output_scale^(1/n), n the values per product. */
static rl_status prepare_s8_prod(rl_plan *plan, const rl_tensor *input, const rl_tensor *output,
                                 rl_s8_prod_params *q) {
    rl_status s = rl_expect_per_tensor_quantization(plan, input, "input");
    if (s != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "output")) != RL_OK) return s;
    const int64_t in_count = rl_shape_count(&input->shape), out_count = rl_shape_count(&output->shape);
    if (in_count == 0 || out_count == 0)
        return rl_fail(plan, RL_UNSUPPORTED, "an empty int8 product (LiteRT leaves its output unwritten)");
    q->input_zero_point = rl_tensor_zero_point(input, 0);
    q->output_zero_point = rl_tensor_zero_point(output, 0);
    /* A product of one value is that value's integer (s8_reduce_prod_ref.c): no rescale, whatever the scales. */
    if (in_count == out_count) return RL_OK;
    const double step = (double)rl_tensor_scale(input, 0) /
                        pow((double)rl_tensor_scale(output, 0), 1.0 / (double)(in_count / out_count));
    /* TFLite's 64-bit rescale shifts right by 15 - shift: defined up to a shift of 14 (its comment asks for at
     * most 7, but only in a debug check, so LiteRT runs shifts 8-14 and rillet computes them the same way). */
    if (rl_quantize_multiplier(step, &q->multiplier, &q->shift) || q->shift < -31 || q->shift > 14)
        return rl_fail(plan, RL_UNSUPPORTED, "the per-step rescale %g (input scale over the output scale's "
                       "%lld-th root) is 2^14 or more, where TFLite's rescale shifts by a negative amount", step,
                       (long long)(in_count / out_count));
    return RL_OK;
}

rl_status rl_prepare_reduce_prod_any(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0), *axes = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    const int any = op->code == RL_OP_REDUCE_ANY || op->code == RL_OP_REDUCE_ALL;
    if (any && (s = rl_expect_dtype(plan, input, "input", RL_BOOL)) != RL_OK) return s;
    if (!any && input->dtype != RL_FLOAT32 && input->dtype != RL_INT32 && input->dtype != RL_INT8 &&
        input->dtype != RL_INT16)
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s input", rl_dtype_name(input->dtype));
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, axes, "axis")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    int32_t reduced[RL_MAX_DIMS] = {0};
    for (int64_t i = 0; i < rl_shape_count(&axes->shape); ++i) {
        const int64_t a = rl_read_index(axes, i);
        if (a < -rank || a >= rank) return rl_fail(plan, RL_INVALID, "axis %lld is outside a rank-%d input", (long long)a, rank);
        reduced[a < 0 ? a + rank : a] = 1;
    }
    rl_reduce_prod_any_state *st = (rl_reduce_prod_any_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    for (int32_t d = 0; d < 8; ++d) {
        const int32_t k = d - (8 - rank);
        st->dims[d] = k >= 0 ? input->shape.dims[k] : 1;
        st->reduced[d] = k >= 0 ? reduced[k] : 0;
    }
    output->shape.rank = 0;
    for (int32_t d = 0; d < rank; ++d) {
        if (!reduced[d]) output->shape.dims[output->shape.rank++] = input->shape.dims[d];
        else if (op->params.reducer.keep_dims) output->shape.dims[output->shape.rank++] = 1;
    }
    st->out_count = rl_shape_count(&output->shape);
    if (input->dtype == RL_INT16) /* reduce_int16.c */
        return rl_prepare_reduce_prod_s16(plan, op, st->dims, st->reduced);
    st->int8 = input->dtype == RL_INT8;
    st->bool_all = op->code == RL_OP_REDUCE_ALL;
    if (st->int8 && (s = prepare_s8_prod(plan, input, output, &st->q)) != RL_OK) return s;
    op->run = run_reduce_prod_any;
    return RL_OK;
}

rl_status rl_eval_reduce_prod_any(rl_plan *plan, rl_op *op) { return run_reduce_prod_any(plan, op); }
