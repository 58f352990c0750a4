/* quant_params.c — reading a tensor's quantization and the clamp ranges prepare derives from it. */
#include <math.h>

#include "plan_internal.h"

rl_status rl_expect_per_tensor_quantization(rl_plan *plan, const rl_tensor *t, const char *what) {
    if (t->q_count != 1)
        return rl_fail(plan, RL_INVALID, "%s must be quantized with one scale, has %d", what, t->q_count);
    if (!(t->q_scales[0] > 0.0f) || !isfinite(t->q_scales[0]))
        return rl_fail(plan, RL_INVALID, "%s has scale %g, must be positive and finite", what,
                       (double)t->q_scales[0]);
    const int64_t zp = t->q_zero_points[0];
    const int64_t lo = t->dtype == RL_INT16 ? -32768 : (t->dtype == RL_UINT8 ? 0 : -128);
    const int64_t hi = t->dtype == RL_INT16 ? 32767 : (t->dtype == RL_UINT8 ? 255 : 127);
    if (zp < lo || zp > hi)
        return rl_fail(plan, RL_INVALID, "%s has zero point %lld, outside %s's range", what, (long long)zp,
                       rl_dtype_name(t->dtype));
    return RL_OK;
}

rl_status rl_expect_int8_binary_operands(rl_plan *plan, const rl_op *op) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *y = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_dtype(plan, b, "input 1", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, y, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, a, "input 0")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, b, "input 1")) != RL_OK) return s;
    return rl_expect_per_tensor_quantization(plan, y, "output");
}

float rl_tensor_scale(const rl_tensor *t, int32_t channel) {
    if (t->q_count <= 0) return 0.0f;
    return t->q_scales[t->q_count == 1 ? 0 : channel];
}

int32_t rl_tensor_zero_point(const rl_tensor *t, int32_t channel) {
    if (t->q_count <= 0) return 0;
    return (int32_t)t->q_zero_points[t->q_count == 1 ? 0 : channel];
}

rl_status rl_quantized_activation_range(rl_plan *plan, int32_t activation, const rl_tensor *output, int32_t *lo,
                                        int32_t *hi) {
    const int32_t qmin = output->dtype == RL_INT16 ? -32768 : (output->dtype == RL_UINT8 ? 0 : -128);
    const int32_t qmax = output->dtype == RL_INT16 ? 32767 : (output->dtype == RL_UINT8 ? 255 : 127);
    const float scale = rl_tensor_scale(output, 0);
    const int32_t zp = rl_tensor_zero_point(output, 0);
    /* As TFLite: zero_point + round(f / scale) with the division in float and ties away from zero. */
/* The quotient is clamped before the cast: a tiny scale makes 6 / scale overflow int32 (undefined in C); any
 * value past 2^24 lands outside [qmin, qmax] either way. */
#define RL_QUANTIZE_REAL(f) (zp + (int32_t)fminf(fmaxf(roundf((f) / scale), -16777216.0f), 16777216.0f))
    *lo = qmin;
    *hi = qmax;
    switch (activation) {
    case RL_ACT_NONE: break;
    case RL_ACT_RELU: *lo = RL_QUANTIZE_REAL(0.0f) > qmin ? RL_QUANTIZE_REAL(0.0f) : qmin; break;
    case RL_ACT_RELU6:
        *lo = RL_QUANTIZE_REAL(0.0f) > qmin ? RL_QUANTIZE_REAL(0.0f) : qmin;
        *hi = RL_QUANTIZE_REAL(6.0f) < qmax ? RL_QUANTIZE_REAL(6.0f) : qmax;
        break;
    case RL_ACT_RELU_N1_TO_1:
        *lo = RL_QUANTIZE_REAL(-1.0f) > qmin ? RL_QUANTIZE_REAL(-1.0f) : qmin;
        *hi = RL_QUANTIZE_REAL(1.0f) < qmax ? RL_QUANTIZE_REAL(1.0f) : qmax;
        break;
    default: return rl_fail(plan, RL_UNSUPPORTED, "fused activation %d is not supported on int8", activation);
    }
#undef RL_QUANTIZE_REAL
    return RL_OK;
}

rl_status rl_expect_quantized_alike(rl_plan *plan, const rl_tensor *t, const char *what, const rl_tensor *reference,
                                    const char *reference_name) {
    if (t->dtype != RL_INT8) return RL_OK;
    if (rl_tensor_scale(t, 0) == rl_tensor_scale(reference, 0) &&
        rl_tensor_zero_point(t, 0) == rl_tensor_zero_point(reference, 0))
        return RL_OK;
    return rl_fail(plan, RL_UNSUPPORTED, "int8 %s is quantized unlike the %s (scale %g zero point %d against %g and %d): "
                   "the values are moved, not rescaled", what, reference_name, (double)rl_tensor_scale(t, 0),
                   rl_tensor_zero_point(t, 0), (double)rl_tensor_scale(reference, 0), rl_tensor_zero_point(reference, 0));
}
