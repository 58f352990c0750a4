/* elementwise_int8.c — int8 ADD, SUB, MUL: which arithmetic LiteRT's Interpreter uses, and its constants.
 *
 * LiteRT's default Interpreter (OpResolverType.AUTO) applies the XNNPACK delegate, which takes int8
 * ADD/SUB when each input-to-output scale ratio is in [1/1024, 256) and int8 MUL when the
 * product-to-output ratio is in [1/65536, 256) (ratios computed in float, as the delegate checks them);
 * other scales fall back to TFLite's builtin kernels. rillet makes the same choice here, so the bits
 * agree on both sides of the boundary (tests/runtime/test_int8_elementwise_ops.py sweeps both).
 */
#include <math.h>
#include <string.h>

#include "ops.h"

/* XNNPACK's xnn_qs8_quantize of a fused activation's float bound: division and zero point in float,
 * rounded to nearest even (TFLite's own range rounds ties away from zero: it differs at exact halves). */
static int32_t xnnpack_quantize_bound(float value, float scale, int32_t zero_point) {
    float q = value / scale + (float)zero_point;
    q = q < -128.0f ? -128.0f : (q > 127.0f ? 127.0f : q);
    return (int32_t)nearbyintf(q);
}

static void xnnpack_activation_range(int32_t activation, float scale, int32_t zero_point, int32_t *lo, int32_t *hi) {
    *lo = -128;
    *hi = 127;
    if (activation == RL_ACT_RELU || activation == RL_ACT_RELU6) *lo = xnnpack_quantize_bound(0.0f, scale, zero_point);
    if (activation == RL_ACT_RELU6) *hi = xnnpack_quantize_bound(6.0f, scale, zero_point);
    if (activation == RL_ACT_RELU_N1_TO_1) {
        *lo = xnnpack_quantize_bound(-1.0f, scale, zero_point);
        *hi = xnnpack_quantize_bound(1.0f, scale, zero_point);
    }
}

static int xnnpack_takes_ratio(float ratio, float lo, float hi) { return ratio >= lo && ratio < hi; }

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* XNNPACK's qs8 add parameters: the larger ratio's exponent sets a shift giving ~21-bit multipliers. */
static void prepare_xnnpack_add(float a_ratio, float b_ratio, rl_s8_binary_params *p) {
    const float larger = fabsf(a_ratio) > fabsf(b_ratio) ? fabsf(a_ratio) : fabsf(b_ratio);
    const int32_t exponent = (int32_t)(float_bits(larger) >> 23) - 127;
    const int32_t shift = 20 - exponent; /* in [13, 30] for ratios the delegate takes */
    /* ratio * 2^shift by adding to the exponent bits (exact), then rounded to nearest even */
    p->xnn_a_multiplier = (int32_t)lrintf(ldexpf(a_ratio, shift));
    p->xnn_b_multiplier = (int32_t)lrintf(ldexpf(b_ratio, shift));
    p->xnn_shift = shift;
    p->xnn_bias = (int32_t)(1u << (shift - 1)) - p->xnn_a_multiplier * p->a_zero_point -
                  p->xnn_b_multiplier * p->b_zero_point;
}

static rl_status prepare_tflite_add(rl_plan *plan, double a_scale, double b_scale, double out_scale,
                                    rl_s8_binary_params *p) {
    /* TFLite's int8 ADD/SUB: left shift 20, inputs scaled to twice the larger input scale (in double). */
    const double twice_max = 2.0 * (a_scale > b_scale ? a_scale : b_scale);
    p->left_shift = 20;
    if (rl_quantize_multiplier(a_scale / twice_max, &p->a_multiplier, &p->a_shift) ||
        rl_quantize_multiplier(b_scale / twice_max, &p->b_multiplier, &p->b_shift) ||
        rl_quantize_multiplier(twice_max / ((double)(1 << p->left_shift) * out_scale), &p->output_multiplier,
                               &p->output_shift))
        return rl_fail(plan, RL_INVALID, "the input and output scales give a multiplier out of range");
    return RL_OK;
}

/* Same-shape ADD/SUB in XNNPACK's arithmetic: the qs8_vadd micro-kernel of the plan's path. */
static rl_status run_vadd(rl_plan *plan, rl_op *op) {
    plan->kernels->qs8_vadd((size_t)op->prep.bc.count, (const int8_t *)rl_input(plan, op, 0)->data,
                            (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data,
                            (const rl_s8_binary_params *)op->scratch);
    return RL_OK;
}

rl_status rl_prepare_binary_s8(rl_plan *plan, rl_op *op) {
    rl_status s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (op->code != RL_OP_ADD && op->code != RL_OP_SUB && op->code != RL_OP_MUL)
        return rl_fail(plan, RL_UNSUPPORTED, "no int8 kernel");
    if ((s = rl_expect_per_tensor_quantization(plan, a, "input 0")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, b, "input 1")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "output")) != RL_OK) return s;
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc)) != RL_OK) return s;
    rl_s8_binary_params *p = rl_op_scratch(plan, op, sizeof *p);
    if (!p) return RL_NO_MEMORY;
    const float sa = rl_tensor_scale(a, 0), sb = rl_tensor_scale(b, 0), so = rl_tensor_scale(output, 0);
    p->a_zero_point = rl_tensor_zero_point(a, 0);
    p->b_zero_point = rl_tensor_zero_point(b, 0);
    p->output_zero_point = rl_tensor_zero_point(output, 0);
    const int32_t activation = op->params.arithmetic.activation;
    int32_t xnnpack = 0;
    if (op->code == RL_OP_MUL) {
        const float ratio = sa * sb / so;
        xnnpack = xnnpack_takes_ratio(ratio, 1.0f / 65536.0f, 256.0f);
        p->scale = ratio;
        p->kind = RL_S8_MUL_XNNPACK;
        if (!xnnpack) {
            if (rl_quantize_multiplier((double)sa * (double)sb / (double)so, &p->output_multiplier, &p->output_shift))
                return rl_fail(plan, RL_INVALID, "the input and output scales give a multiplier out of range");
            p->kind = RL_S8_MUL_TFLITE;
        }
    } else {
        const float a_ratio = sa / so, b_ratio = sb / so;
        xnnpack = xnnpack_takes_ratio(a_ratio, 1.0f / 1024.0f, 256.0f) && xnnpack_takes_ratio(b_ratio, 1.0f / 1024.0f, 256.0f);
        if (xnnpack) {
            prepare_xnnpack_add(a_ratio, op->code == RL_OP_SUB ? -b_ratio : b_ratio, p);
            p->kind = RL_S8_ADDSUB_XNNPACK;
        } else {
            if ((s = prepare_tflite_add(plan, sa, sb, so, p)) != RL_OK) return s;
            p->kind = op->code == RL_OP_SUB ? RL_S8_SUB_TFLITE : RL_S8_ADD_TFLITE;
        }
    }
    if ((s = rl_quantized_activation_range(plan, activation, output, &p->act_min, &p->act_max)) != RL_OK) return s;
    if (xnnpack) xnnpack_activation_range(activation, so, p->output_zero_point, &p->act_min, &p->act_max);
    if (p->kind == RL_S8_ADDSUB_XNNPACK && op->prep.bc.contiguous == 1) op->run = run_vadd;
    return RL_OK;
}

rl_status rl_eval_binary_s8(rl_plan *plan, rl_op *op) {
    plan->kernels->s8_binary(&op->prep.bc, (const rl_s8_binary_params *)op->scratch, (const int8_t *)rl_input(plan, op, 0)->data,
                             (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
