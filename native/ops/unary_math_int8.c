/* unary_math_int8.c — int8 RSQRT, SQRT, LOG, EXP, ELU and GELU as 256-entry tables (s8_lut), each entry computed at
 * prepare with the arithmetic of LiteRT 2.3's builtin kernel for that op (XNNPACK takes none of them on int8;
 * probed: AUTO and BUILTIN_WITHOUT_DEFAULT_DELEGATES agree):
 * - RSQRT: TFLite's integer path. 1/sqrt(x - zero point) as a fixed-point multiplier (gemmlowp's Newton-Raphson,
 *   s8_inv_sqrt_multiplier), applied to 1 with 20 extra bits, then the scale ratio 1 / (sqrt(input scale) *
 *   output scale) with double rounding; an input at the zero point gives 127.
 * - SQRT: float per element: sqrtf(dequantized) / output scale, truncated toward zero, plus the zero point.
 * - LOG, EXP: TFLite's LUTPopulate: dequantize in float, the function in float, times 1 / output scale,
 *   rounded half away from zero, plus the zero point, clamped to int8 in float (an EXP that overflows to
 *   infinity gives 127; probed). LOG of a value <= 0 is the output's lowest representable value. ELU and
 *   GELU the same, over the float kernel's formula (f32_unary_math_ref.c).
 * RSQRT and SQRT of an input below the zero point fail at eval, as TFLite's do ("only defined for positive
 * values"). Float inputs go on to the float unary family (elementwise.c; ELU and GELU: unary_math.c). */
#include <math.h>

#include "ops.h"

static int8_t saturate_s8(int32_t v) { return (int8_t)rl_clamp_i32(v, -128, 127); }

/* static_cast<int32_t>(float) as x86's cvttss2si computes it: truncation, INT32_MIN when out of range or NaN. */
static int32_t x86_float_to_int32(float v) {
    return v >= -2147483648.0f && v < 2147483648.0f ? (int32_t)v : INT32_MIN;
}

/* LUTPopulate's entry for the function value y: clamped in float, so an overflow to infinity gives 127. */
static int8_t lut_entry(float y, float inverse_scale, int32_t output_zero_point) {
    const float shifted = roundf(y * inverse_scale) + (float)output_zero_point;
    return (int8_t)(int32_t)fminf(fmaxf(shifted, -128.0f), 127.0f);
}

static void log_or_exp_table(int32_t code, float si, int32_t zi, float so, int32_t zo, int8_t *table) {
    const float inverse_scale = 1 / so;
    const float lowest = (float)(-128 - zo) * so;
    for (int32_t x = -128; x < 128; ++x) {
        const float v = si * (float)(x - zi);
        const float y = code == RL_OP_EXP ? expf(v) : v <= 0.0f ? lowest : logf(v);
        table[(uint8_t)x] = lut_entry(y, inverse_scale, zo);
    }
}

/* ELU and GELU over the float kernel's own formula (f32_unary_math_ref): ELU as XNNPACK's qs8 ELU table
 * (y times 1 / output scale, plus the zero point, in float, rounded to nearest even as a long, clamped;
 * probed: dividing instead, or adding the zero point after rounding, differ in a few entries), GELU
 * with LUTPopulate. */
static void float_kernel_table(rl_math_unary_op fn, float si, int32_t zi, float so, int32_t zo, int8_t *table) {
    float x[256], y[256];
    for (int32_t q = -128; q < 128; ++q) x[q + 128] = si * (float)(q - zi);
    f32_unary_math_ref(fn, 256, x, y);
    const float inverse_scale = 1 / so;
    for (int32_t q = -128; q < 128; ++q)
        if (fn == RL_MATH_ELU) {
            const long v = lrintf(y[q + 128] * inverse_scale + (float)zo);
            table[(uint8_t)q] = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
        } else {
            table[(uint8_t)q] = lut_entry(y[q + 128], inverse_scale, zo);
        }
}

static void sqrt_table(float si, int32_t zi, float so, int32_t zo, int8_t *table) {
    for (int32_t x = -128; x < 128; ++x) {
        const float v = si * (float)(x - zi);
        /* the zero point added in int32 wrapping, as TFLite's int addition does on x86 */
        const uint32_t q = (uint32_t)x86_float_to_int32(sqrtf(v) / so) + (uint32_t)zo;
        table[(uint8_t)x] = v < 0.0f ? 0 : saturate_s8((int32_t)q);
    }
}

static rl_status rsqrt_table(rl_plan *plan, float si, int32_t zi, float so, int32_t zo, int8_t *table) {
    const int32_t extra_bits = 20; /* TFLite's kShift: keeps 1/sqrt(v) an integer before the scale ratio */
    int32_t multiplier, shift;
    if (rl_quantize_multiplier(1.0 / (sqrt((double)si) * (double)so), &multiplier, &shift))
        return rl_fail(plan, RL_UNSUPPORTED, "the int8 RSQRT scale ratio 1 / (sqrt(%g) * %g) is out of TFLite's "
                       "multiplier range", (double)si, (double)so);
    for (int32_t x = -128; x < 128; ++x) {
        const int32_t v = x - zi;
        if (v <= 0) { /* at the zero point: the largest output, as TFLite; below it eval refuses */
            table[(uint8_t)x] = 127;
            continue;
        }
        int32_t inv_multiplier, inv_shift;
        s8_inv_sqrt_multiplier(v, &inv_multiplier, &inv_shift);
        const int32_t scaled = rl_mul_by_quantized_multiplier(1, inv_multiplier, inv_shift + extra_bits);
        table[(uint8_t)x] = saturate_s8(rl_mul_by_quantized_multiplier(scaled, multiplier, shift - extra_bits) + zo);
    }
    return RL_OK;
}

rl_status rl_prepare_unary_math_s8(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *in = rl_input(plan, op, 0);
    rl_tensor *out = rl_output(plan, op, 0);
    const int float_kernel = op->code == RL_OP_ELU || op->code == RL_OP_GELU; /* unary_math.c's, else elementwise.c's */
    if (in->dtype == RL_INT16) return rl_prepare_unary_s16(plan, op); /* unary_int16.c */
    if (in->dtype != RL_INT8) return float_kernel ? rl_prepare_unary_math(plan, op) : rl_prepare_same_shape_f32(plan, op);
    rl_s8_table_state *st;
    if ((s = rl_s8_table_prepare(plan, op, &st)) != RL_OK) return s;
    const float si = rl_tensor_scale(in, 0), so = rl_tensor_scale(out, 0);
    const int32_t zi = rl_tensor_zero_point(in, 0), zo = rl_tensor_zero_point(out, 0);
    switch (op->code) {
    case RL_OP_RSQRT:
        st->lowest_input = zi;
        if ((s = rsqrt_table(plan, si, zi, so, zo, st->table)) != RL_OK) return s;
        break;
    case RL_OP_SQRT:
        st->lowest_input = zi;
        sqrt_table(si, zi, so, zo, st->table);
        break;
    case RL_OP_ELU: float_kernel_table(RL_MATH_ELU, si, zi, so, zo, st->table); break;
    case RL_OP_GELU:
        float_kernel_table(op->params.gelu.approximate ? RL_MATH_GELU_TANH : RL_MATH_GELU, si, zi, so, zo, st->table);
        break;
    default: log_or_exp_table(op->code, si, zi, so, zo, st->table); break;
    }
    if (st->lowest_input > -128) op->run_rows = NULL; /* its run checks every input; a band could not fail */
    return RL_OK;
}

rl_status rl_eval_unary_math_s8(rl_plan *plan, rl_op *op) {
    if (op->run == rl_s8_table_run) return rl_s8_table_run(plan, op);
    return op->code == RL_OP_ELU || op->code == RL_OP_GELU ? rl_eval_unary_math(plan, op) : rl_eval_unary(plan, op);
}
