/* s8_div_ref.c — int8 DIV of broadcast operands as TFLite's builtin kernel computes it (LiteRT 2.3's default
 * Interpreter runs it there; XNNPACK takes no int8 DIV): per element, both operands less their zero points,
 * the divisor made positive (both signs flipped), its reciprocal as a fixed-point value with gemmlowp's
 * Newton-Raphson (GetReciprocal), the dividend scaled up by its headroom and multiplied by it, then the
 * scale ratio with a multiplier below one (double rounding), the zero point added and the activation range
 * clamped. The caller has checked that no divisor equals its zero point. */
#include "kernels.h"
#include "quant.h"


/* TFLite's CountLeadingSignBits (GCC's __builtin_clrsb; 31 for 0). */
static int count_leading_sign_bits(int32_t x) {
    return rl_count_leading_zeros((uint32_t)(x < 0 ? ~x : x)) - 1;
}

/* gemmlowp's one_over_one_plus_x_for_x_in_0_1: 1 / (1 + x) for x in [0, 1) in Q0.31, by three Newton-Raphson
 * steps in Q2.29 from 48/17 - 32/17 * d (d = (1 + x) / 2); sums wrap as gemmlowp's raw adds do. */
static int32_t one_over_one_plus_x(int32_t x) {
    const int64_t sum = (int64_t)x + INT32_MAX; /* RoundingHalfSum(x, One()): ties away from zero */
    const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    const int32_t one_q29 = 1 << 29;
    int32_t r = (int32_t)((uint32_t)1515870810 + (uint32_t)rl_srdhm(half_denominator, -1010580540));
    for (int i = 0; i < 3; ++i) {
        const int32_t residual = (int32_t)((uint32_t)one_q29 - (uint32_t)rl_srdhm(half_denominator, r));
        r = (int32_t)((uint32_t)r + (uint32_t)rl_saturating_shift_left(rl_srdhm(r, residual), 2));
    }
    return rl_saturating_shift_left(r, 1);
}

/* TFLite's GetReciprocal(x, 31, &shift) for x > 0: 1 / x = result * 2^-(31 + shift) with result in Q0.31. */
static int32_t reciprocal(int32_t x, int32_t *shift) {
    const int headroom_plus_one = rl_count_leading_zeros((uint32_t)x);
    *shift = 31 - headroom_plus_one;
    const int32_t shifted_minus_one = (int32_t)(((uint32_t)x << headroom_plus_one) - (1u << 31));
    return one_over_one_plus_x(shifted_minus_one);
}

/* gemmlowp's RoundingDivideByPOT as TFLite's int8 DIV reaches it on x86: a zero dividend has 31 bits of
 * headroom, so the exponent reaches 32 and more, where gemmlowp's shifts exceed the operand's width. That
 * is undefined in C and C++; x86 takes shift counts modulo the width (32 for the value, 64 for the mask
 * built in 64 bits), which is what LiteRT's x86 builds compute (a 0 dividend then rounds up by one: the
 * mask is all ones). The same arithmetic, defined (the sanitizer job caught the undefined shift). */
static int32_t rounding_divide_by_pot_as_x86(int32_t x, int32_t exponent) {
    const int32_t mask = (int32_t)(uint32_t)(((uint64_t)1 << (exponent & 63)) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> (exponent & 31)) + (remainder > threshold ? 1 : 0);
}

int32_t rl_tflite_quantized_divide(int32_t n, int32_t d, const rl_s8_div_params *p) {
    if (d < 0) { /* the reciprocal is a positive multiplier: move the sign to the dividend */
        n = -n;
        d = -d;
    }
    int32_t recip_shift;
    const int32_t inverse = reciprocal(d, &recip_shift);
    const int headroom = count_leading_sign_bits(n);
    const int32_t quotient = rl_srdhm((int32_t)((uint32_t)n << headroom), inverse);
    const int32_t total_shift = p->output_shift - recip_shift - headroom; /* <= 0: prepare bounds the shift */
    const int32_t out = p->output_zero_point +
                        rounding_divide_by_pot_as_x86(rl_srdhm(quotient, p->output_multiplier), -total_shift);
    return rl_clamp_i32(out, p->act_min, p->act_max);
}

void s8_div_ref(const rl_broadcast *bc, const rl_s8_div_params *p, const int8_t *a, const int8_t *b, int8_t *y) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        y[i] = (int8_t)rl_tflite_quantized_divide(a[ia + index[7] * bc->a_strides[7]] - p->zero_point[0],
                      b[ib + index[7] * bc->b_strides[7]] - p->zero_point[1], p);
        rl_next_index(8, bc->out_dims, index);
    }
}
