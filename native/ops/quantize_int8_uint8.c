/* quantize_int8_uint8.c — QUANTIZE between int8 and uint8 (either way): microWakeWord's streaming models
 * (pymicro-wakeword) end in an int8 to uint8 QUANTIZE.
 *
 * XNNPACK's delegate takes only a requantization within one type, so LiteRT's default Interpreter runs these
 * through TFLite's optimized builtin kernel (optimized_ops::Requantize<int8_t, uint8_t> and <uint8_t,
 * int8_t>): the multiplier and shift of input_scale / output_scale in double, whole blocks of 16 elements
 * through NEON's vqrdmulh and vrshl (both round halves up; NEON_2_SSE on x86), the 0-15 elements left
 * through gemmlowp's MultiplyByQuantizedMultiplier (halves away from zero), then the output zero point and
 * a clamp to the output type. Probed against LiteRT on all 256 inputs of each type: the blocks and the tail
 * round differently, and only this split gives LiteRT's bits (test_quantize_ops.py). */
#include "ops.h"
#include "quant.h"

typedef struct {
    int32_t input_zero_point, output_zero_point, multiplier, shift;
    int32_t output_min, output_max; /* the output type's range */
} rl_requantize_mixed_state;

/* NEON's vshlq_s32, vqrdmulhq_s32 and vrshlq_s32 on one lane (MultiplyByQuantizedMultiplier4Rows). */
static int32_t neon_multiply(int32_t x, int32_t multiplier, int32_t shift) {
    const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    const int64_t a = (int32_t)((uint32_t)x << left);
    int64_t v = (2 * a * multiplier + (INT64_C(1) << 31)) >> 32;
    if (v > INT32_MAX) v = INT32_MAX; /* vqrdmulh saturates */
    return (int32_t)(right ? (v + (INT64_C(1) << (right - 1))) >> right : v);
}

static int32_t requantize_one(const rl_requantize_mixed_state *st, int32_t x, int blocked) {
    const int32_t centred = x - st->input_zero_point;
    const int32_t v = blocked ? neon_multiply(centred, st->multiplier, st->shift)
                              : rl_mul_by_quantized_multiplier(centred, st->multiplier, st->shift);
    return rl_clamp_i32(v + st->output_zero_point, st->output_min, st->output_max);
}

static rl_status run_requantize_mixed(rl_plan *plan, rl_op *op) {
    const rl_requantize_mixed_state *st = (const rl_requantize_mixed_state *)op->scratch;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    const int64_t count = rl_shape_count(&output->shape), blocked = count / 16 * 16;
    if (input->dtype == RL_INT8) {
        const int8_t *x = (const int8_t *)input->data;
        uint8_t *y = (uint8_t *)output->data;
        for (int64_t i = 0; i < count; ++i) y[i] = (uint8_t)requantize_one(st, x[i], i < blocked);
    } else {
        const uint8_t *x = (const uint8_t *)input->data;
        int8_t *y = (int8_t *)output->data;
        for (int64_t i = 0; i < count; ++i) y[i] = (int8_t)requantize_one(st, x[i], i < blocked);
    }
    return RL_OK;
}

rl_status rl_prepare_quantize_int8_uint8(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_per_tensor_quantization(plan, input, "QUANTIZE's input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, output, "QUANTIZE's output")) != RL_OK) return s;
    const int in_int8 = input->dtype == RL_INT8; /* (each zero point is checked against its type's range) */
    rl_requantize_mixed_state *st =
        (rl_requantize_mixed_state *)rl_op_scratch(plan, op, sizeof(rl_requantize_mixed_state));
    if (!st) return RL_NO_MEMORY;
    st->input_zero_point = rl_tensor_zero_point(input, 0);
    st->output_zero_point = rl_tensor_zero_point(output, 0);
    st->output_min = in_int8 ? 0 : -128;
    st->output_max = in_int8 ? 255 : 127;
    const double ratio = (double)rl_tensor_scale(input, 0) / (double)rl_tensor_scale(output, 0);
    if (rl_quantize_multiplier(ratio, &st->multiplier, &st->shift))
        return rl_fail(plan, RL_UNSUPPORTED, "QUANTIZE's input/output scale ratio %g has no fixed-point multiplier",
                       ratio);
    op->run = run_requantize_mixed;
    return RL_OK;
}
