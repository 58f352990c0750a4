/* quant.h — fixed-point arithmetic of TFLite's int8 quantization spec, shared by every int8 kernel.
 *
 * Real-valued multipliers (scale ratios) become a 32-bit multiplier in [2^30, 2^31) and a power-of-two
 * shift when the plan is prepared (rl_quantize_multiplier); kernels then only multiply, shift and round.
 * Rounding is where runtimes disagree, so each variant is spelled out and named after what it matches;
 * a kernel's comment says which variant LiteRT's default Interpreter gives for that op.
 */
#ifndef RILLET_QUANT_H
#define RILLET_QUANT_H

#include <stdint.h>

/* What prepare computes once for an int8 op (kept in rl_prepared.q). Per-channel arrays live in the
 * op's scratch memory (rl_op_scratch). */
typedef struct {
    int32_t input_zero_point[3];
    int32_t output_zero_point;
    int32_t multiplier[3], shift[3]; /* per-tensor multipliers (e.g. ADD's two inputs and its output) */
    int32_t left_shift;
    int32_t act_min, act_max;       /* clamp range in the output's integer domain */
    const int32_t *channel_multiplier, *channel_shift; /* per output channel, or NULL */
    const void *table;                                 /* a lookup table (e.g. 256 int8 entries), or NULL */
} rl_quant_params;

/* TFLite's QuantizeMultiplier: m = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (0 for m == 0).
 * Returns 0, or 1 when m is negative, not finite, or too large (shift > 31) to represent. */
int rl_quantize_multiplier(double m, int32_t *multiplier, int32_t *shift);

/* gemmlowp's SaturatingRoundingDoublingHighMul: round(a * b / 2^31), ties away from zero, saturating. */
static inline int32_t rl_srdhm(int32_t a, int32_t b) {
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    return (int32_t)((ab + nudge) / (1LL << 31)); /* C division truncates toward zero, as gemmlowp's */
}

/* gemmlowp's RoundingDivideByPOT: x / 2^exponent, ties away from zero (exponent in [0, 31]). */
static inline int32_t rl_rounding_divide_by_pot(int32_t x, int32_t exponent) {
    const int32_t mask = (int32_t)((1LL << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* TFLite's reference MultiplyByQuantizedMultiplier (double rounding: the high multiply rounds, then the
 * right shift rounds again), which its reference and optimized builtin kernels use unless built with
 * TFLITE_SINGLE_ROUNDING. */
static inline int32_t rl_mul_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift) {
    const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return rl_rounding_divide_by_pot(rl_srdhm((int32_t)((uint32_t)x << left), multiplier), right);
}

/* Single rounding: round(x * multiplier / 2^(31 - shift)), ties toward +infinity, as ruy's
 * ApplyMultiplier and TFLITE_SINGLE_ROUNDING builds compute it. */
static inline int32_t rl_mul_by_quantized_multiplier_single(int32_t x, int32_t multiplier, int32_t shift) {
    const int32_t total = 31 - shift;
    const int64_t round = (int64_t)1 << (total - 1);
    return (int32_t)(((int64_t)x * (int64_t)multiplier + round) >> total);
}

/* TFLite's MultiplyByQuantizedMultiplier(int64_t x, ...), its 16x8 and REDUCE_PROD form: the multiplier first
 * rounded to 16 bits, then one rounding, ties toward +infinity. The right shift of a negative product is
 * arithmetic, as TFLite's; C99 leaves it implementation-defined and every compiler rillet builds with shifts so. */
static inline int32_t rl_mul_by_quantized_multiplier_64(int64_t x, int32_t multiplier, int32_t shift) {
    const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
    const int32_t total_shift = 15 - shift;
    return (int32_t)((x * reduced + ((int64_t)1 << (total_shift - 1))) >> total_shift);
}

static inline int32_t rl_clamp_i32(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* gemmlowp's SaturatingRoundingMultiplyByPOT for a positive exponent: x * 2^exponent, saturating. */
static inline int32_t rl_saturating_shift_left(int32_t x, int exponent) {
    const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << exponent);
}

/* The leading zero bits of x (32 for 0), portably: the inverse square root and reciprocal of TFLite's
 * int8 kernels normalise with it. */
static inline int rl_count_leading_zeros(uint32_t x) {
    int n = 0;
    for (uint32_t bit = 1u << 31; bit && !(x & bit); bit >>= 1) ++n;
    return n;
}

#endif
