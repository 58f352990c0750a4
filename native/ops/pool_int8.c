/* pool_int8.c — int8 MAX_POOL_2D and AVERAGE_POOL_2D: quantization checks and the clamp range.
 *
 * Both pass values through without rescaling, so the output must carry the input's quantization: LiteRT's
 * default Interpreter fails to prepare an int8 MAX_POOL_2D whose scales differ (XNNPACK takes the op and
 * refuses them), and TFLite's builtin AVERAGE_POOL_2D ignores the output's scale, so rillet refuses both.
 * MAX_POOL_2D runs in XNNPACK, which quantizes a fused activation's bounds rounding half to even;
 * AVERAGE_POOL_2D runs TFLite's builtin, whose bounds round half away from zero.
 */
#include <math.h>

#include "ops.h"

rl_status rl_prepare_pool2d_s8(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_per_tensor_quantization(plan, in, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, out, "output")) != RL_OK) return s;
    if (rl_tensor_scale(in, 0) != rl_tensor_scale(out, 0) || rl_tensor_zero_point(in, 0) != rl_tensor_zero_point(out, 0))
        return rl_fail(plan, RL_UNSUPPORTED, "int8 pooling needs the output quantized as the input (scale %g zero point %d), "
                       "has scale %g zero point %d", (double)rl_tensor_scale(in, 0), rl_tensor_zero_point(in, 0),
                       (double)rl_tensor_scale(out, 0), rl_tensor_zero_point(out, 0));
    const int32_t activation = op->params.pool.activation;
    if ((s = rl_quantized_activation_range(plan, activation, out, &op->prep.q.act_min, &op->prep.q.act_max)) != RL_OK)
        return s;
    if (op->code == RL_OP_MAX_POOL_2D && activation != RL_ACT_NONE) {
        const float scale = rl_tensor_scale(out, 0), zp = (float)rl_tensor_zero_point(out, 0);
        const float lo = activation == RL_ACT_RELU_N1_TO_1 ? -1.0f : 0.0f;
        const float hi = activation == RL_ACT_RELU6 ? 6.0f : (activation == RL_ACT_RELU_N1_TO_1 ? 1.0f : INFINITY);
        op->prep.q.act_min = (int32_t)nearbyintf(fminf(fmaxf(lo / scale + zp, -128.0f), 127.0f));
        op->prep.q.act_max = (int32_t)nearbyintf(fminf(fmaxf(hi / scale + zp, -128.0f), 127.0f));
    }
    return RL_OK;
}

rl_status rl_eval_pool2d_s8(rl_plan *plan, rl_op *op, const rl_window_geometry *g) {
    const int8_t *x = (const int8_t *)rl_input(plan, op, 0)->data;
    int8_t *y = (int8_t *)rl_output(plan, op, 0)->data;
    if (op->code == RL_OP_MAX_POOL_2D) plan->kernels->s8_maxpool2d(g, op->prep.q.act_min, op->prep.q.act_max, x, y);
    else plan->kernels->s8_avgpool2d(g, op->prep.q.act_min, op->prep.q.act_max, x, y);
    return RL_OK;
}
