/* s8_l2_normalize_ref.c — int8 L2_NORMALIZATION over the last axis, bit for bit as LiteRT's builtin kernel
 * (reference_integer_ops::L2Normalization; XNNPACK takes only float32 ones): per row, the sum of squared
 * (x - zero point) in int32, its inverse square root as a fixed-point multiplier and shift (gemmlowp's
 * Newton-Raphson, GetInvSqrtQuantizedMultiplierExp below), then each value times it in the output's 1/128
 * scale, clamped to int8. */
#include "kernels.h"
#include "quant.h"


/* TFLite's GetInvSqrtQuantizedMultiplierExp with reverse_shift -1: 1 / sqrt(input) as multiplier * 2^shift.
 * The fixed-point values are gemmlowp's FixedPoint<int32, 3> (28 fraction bits); products of two of them add
 * their integer bits (a rounding doubling high multiply), and Rescale shifts back with saturation. */
void s8_inv_sqrt_multiplier(int32_t input, int32_t *multiplier, int32_t *shift) {
    if (input <= 1) { /* 0 is taken as 1, as TFLite does, rather than dividing by zero */
        *multiplier = INT32_MAX;
        *shift = 0;
        return;
    }
    int32_t right_shift = 11;
    while (input >= (1 << 29)) {
        input /= 4;
        ++right_shift;
    }
    const int left_shift_bit_pairs = (rl_count_leading_zeros((uint32_t)input) - 1) / 2 - 1;
    right_shift -= left_shift_bit_pairs;
    input <<= 2 * left_shift_bit_pairs;
    const int32_t half_input = rl_rounding_divide_by_pot(input >> 1, 1);
    const int32_t half_three = (1 << 28) + (1 << 27); /* 1.5 */
    int32_t x = 1 << 28;                              /* 1.0, the starting guess */
    for (int i = 0; i < 5; ++i) {
        const int32_t x3 = rl_saturating_shift_left(rl_srdhm(rl_srdhm(x, x), x), 6);
        /* gemmlowp subtracts raw values without saturation: wrap as it does */
        const int32_t step = (int32_t)((uint32_t)rl_srdhm(half_three, x) - (uint32_t)rl_srdhm(half_input, x3));
        x = rl_saturating_shift_left(step, 3);
    }
    x = rl_srdhm(x, 1518500250); /* times sqrt(2) / 2 */
    if (right_shift < 0) {
        x = (int32_t)((uint32_t)x << -right_shift);
        right_shift = 0;
    }
    *multiplier = x;
    *shift = -right_shift;
}

void s8_l2_normalize_ref(int64_t rows, int64_t depth, int32_t input_zero_point, const int8_t *x, int8_t *y) {
    for (int64_t r = 0; r < rows; ++r) {
        const int8_t *in = x + r * depth;
        uint32_t squares = 0; /* TFLite's int32 sum; past 33,000 channels of extreme values it wraps, as TFLite's */
        for (int64_t c = 0; c < depth; ++c) {
            const int32_t v = in[c] - input_zero_point;
            squares += (uint32_t)(v * v);
        }
        int32_t multiplier, shift;
        s8_inv_sqrt_multiplier((int32_t)squares, &multiplier, &shift);
        for (int64_t c = 0; c < depth; ++c) {
            const int32_t v = rl_mul_by_quantized_multiplier(in[c] - input_zero_point, multiplier, shift + 7);
            y[r * depth + c] = (int8_t)rl_clamp_i32(v, -128, 127);
        }
    }
}
