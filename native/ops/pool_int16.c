/* pool_int16.c — MAX_POOL_2D and AVERAGE_POOL_2D of TFLite's 16x8 mode on s16_pool_ref.c; window.c computes the
 * geometry and sends int16 here. Both pass values through unscaled, so the output must be quantized as the
 * input (TFLite assumes it and ignores the output's scale); zero points are 0. */
#include "ops.h"
#include "s16_elementwise.h"

typedef struct {
    rl_window_geometry g;
    int32_t act_min, act_max;
} rl_s16_pool_state;

static rl_status run_pool_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_pool_state *st = (const rl_s16_pool_state *)op->state;
    const int16_t *x = (const int16_t *)rl_input(plan, op, 0)->data;
    int16_t *y = (int16_t *)rl_output(plan, op, 0)->data;
    if (op->code == RL_OP_MAX_POOL_2D)
        s16_maxpool_ref(&st->g, st->act_min, st->act_max, x, y);
    else
        s16_avgpool_ref(&st->g, st->act_min, st->act_max, x, y);
    return RL_OK;
}

rl_status rl_prepare_pool2d_s16(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_status s = rl_expect_per_tensor_quantization(plan, in, "int16 input");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, out, "int16 output");
    if (s != RL_OK) return s;
    if (rl_tensor_scale(in, 0) != rl_tensor_scale(out, 0) || rl_tensor_zero_point(in, 0) != 0 ||
        rl_tensor_zero_point(out, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 pooling needs the output quantized as the input with zero point 0 "
                       "(input scale %g zero point %d, output scale %g zero point %d)", (double)rl_tensor_scale(in, 0),
                       rl_tensor_zero_point(in, 0), (double)rl_tensor_scale(out, 0), rl_tensor_zero_point(out, 0));
    rl_s16_pool_state *st = (rl_s16_pool_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->g = *g;
    if ((s = rl_quantized_activation_range(plan, op->params.pool.activation, out, &st->act_min, &st->act_max)) != RL_OK)
        return s;
    op->run = run_pool_s16;
    return RL_OK;
}
