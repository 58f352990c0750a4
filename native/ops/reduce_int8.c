/* reduce_int8.c — int8 MEAN and SUM: quantization checks and the constants of XNNPACK's qs8 reduction.
 *
 * LiteRT's default Interpreter hands int8 MEAN and SUM to XNNPACK for every axis set (negative, repeated,
 * over size-1 dimensions), rank and scale ratio tried: compared against BUILTIN_WITHOUT_DEFAULT_DELEGATES and
 * BUILTIN_REF over ranks 1-6, keep_dims, equal and unequal scales and zero points, its results are XNNPACK's
 * (int32 sums, then sum * scale + (zo - n * zi * scale) in float32, rounded to nearest even, with
 * scale = si / so and for MEAN fl(si / so) * fl(1 / n)). The float32 roundings matter: (sum - n * zi) * scale
 * + zo, in float32 or exactly, differs from it near halves (test_int8_pool_reduce_ops.py pins two cases). TFLite's own kernels differ from it by one in places:
 * its MEAN uses a fixed-point multiplier (4-D spatial case) or float division, its SUM rounds ties away from
 * zero, and its reference SUM narrows to int8 without saturating.
 */
#include "ops.h"


rl_status rl_prepare_reduce_s8(rl_plan *plan, rl_op *op, int64_t reduced_count) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_dtype(plan, out, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, in, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, out, "output")) != RL_OK) return s;
    if (reduced_count > (int64_t)1 << 23)
        return rl_fail(plan, RL_UNSUPPORTED, "int8 reduction over %lld elements: at most 2^23 (int32 sums)",
                       (long long)reduced_count);
    rl_s8_reduce_params *p = rl_op_scratch(plan, op, sizeof *p);
    if (!p) return RL_NO_MEMORY;
    const float ratio = rl_tensor_scale(in, 0) / rl_tensor_scale(out, 0);
    p->scale = op->code == RL_OP_MEAN ? ratio * (1.0f / (float)reduced_count) : ratio;
    p->bias = (float)rl_tensor_zero_point(out, 0) - (float)(reduced_count * rl_tensor_zero_point(in, 0)) * p->scale;
    return RL_OK;
}

rl_status rl_eval_reduce_s8(rl_plan *plan, rl_op *op) {
    plan->kernels->s8_reduce(op->prep.dims, op->prep.reduce_axes, (const rl_s8_reduce_params *)op->scratch,
                             (const int8_t *)rl_input(plan, op, 0)->data, (int32_t *)op->arena_scratch,
                             (int8_t *)rl_output(plan, op, 0)->data, op->prep.count);
    return RL_OK;
}
