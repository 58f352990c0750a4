/* qs8_lstm_activations_ref.c — gemmlowp's fixed-point logistic and tanh on int16 (FixedPoint<int16_t, N>),
 * which TFLite's integer LSTM applies to its gates and cell (tensor_utils::ApplySigmoid, ApplyTanh; every
 * build of LiteRT runs the portable ones). A value with N integer bits is raw / 2^(15 - N). Products of two
 * values add their integer bits (a rounding doubling high multiply, saturating); additions wrap as int16
 * does, except the one gemmlowp saturates for 16-bit types; its int32 constants are rounded to 16 bits. */
#include "qs8_lstm.h"
#include "quant.h"

static int16_t wrap16(int32_t v) { return (int16_t)(uint16_t)(uint32_t)v; }

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul: round(a * b / 2^15), ties away from zero. */
static int16_t mul16(int16_t a, int16_t b) {
    if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
    const int32_t ab = (int32_t)a * b;
    return (int16_t)((ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14))) / (1 << 15));
}

/* RoundingDivideByPOT on int16: x / 2^exponent, ties away from zero. */
static int16_t divide_pot16(int16_t x, int exponent) {
    const int32_t mask = (1 << exponent) - 1, remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return wrap16((x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* SaturatingRoundingMultiplyByPOT with a positive exponent on int16: x * 2^exponent, saturating. */
static int16_t shift_left_saturating16(int16_t x, int exponent) {
    const int32_t threshold = (1 << (15 - exponent)) - 1;
    if (x > threshold) return INT16_MAX;
    if (x < -threshold) return INT16_MIN;
    return wrap16((int32_t)((uint32_t)(int32_t)x << exponent));
}

/* A gemmlowp constant given as int32 fixed point, in 16 bits. */
static int16_t constant16(int32_t raw32) { return (int16_t)rl_rounding_divide_by_pot(raw32, 16); }

/* exp(a) for a in [-1/4, 0), a in Q0.15: a Taylor series around -1/8. */
static int16_t exp_on_quarter_interval(int16_t a) {
    const int16_t constant_term = constant16(1895147668), one_third = constant16(715827883);
    const int16_t x = wrap16(a + (1 << 12)), x2 = mul16(x, x), x3 = mul16(x2, x), x4 = mul16(x2, x2);
    const int16_t x4_over_4 = divide_pot16(x4, 2);
    const int16_t tail = divide_pot16(wrap16(mul16(wrap16(x4_over_4 + x3), one_third) + x2), 1);
    const int32_t sum = constant_term + mul16(constant_term, wrap16(x + tail)); /* AddSaturatingIf16Bit */
    return (int16_t)(sum > INT16_MAX ? INT16_MAX : (sum < INT16_MIN ? INT16_MIN : sum));
}

/* exp(a) for a <= 0 with `bits` integer bits, to Q0.15: exp of a mod 1/4, times exp(-2^k) for each bit k of
 * the rest. */
static int16_t exp_on_negative_values(int16_t a, int bits) {
    static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int fraction_bits = 15 - bits;
    const int16_t one_quarter = (int16_t)(1 << (fraction_bits - 2));
    const int16_t a_mod_quarter = wrap16((a & (one_quarter - 1)) - one_quarter);
    int16_t result = exp_on_quarter_interval(bits ? shift_left_saturating16(a_mod_quarter, bits) : a_mod_quarter);
    const int16_t remainder = wrap16(a_mod_quarter - a);
    for (int exponent = -2; exponent <= 4; ++exponent)
        if (bits > exponent && (remainder & (1 << (fraction_bits + exponent))))
            result = mul16(result, constant16(multipliers[exponent + 2]));
    if (bits > 5 && a < constant16(-(1 << (36 - bits)))) result = 0; /* below -32 */
    return a == 0 ? INT16_MAX : result;
}

/* The Newton-Raphson division both functions share: 2 / (1 + a) for a in [0, 1], in Q2.13. */
static int16_t two_over_one_plus(int16_t a) {
    const int32_t sum = (int32_t)a + INT16_MAX; /* RoundingHalfSum: (a + 1) / 2, ties away from zero */
    const int16_t half_denominator = (int16_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int16_t x = wrap16(constant16(1515870810) + mul16(half_denominator, constant16(-1010580540))); /* 48/17 - 32/17 d */
    for (int i = 0; i < 3; ++i) {
        const int16_t one_minus = wrap16((1 << 13) - mul16(half_denominator, x));
        x = wrap16(x + shift_left_saturating16(mul16(x, one_minus), 2));
    }
    return x;
}

int16_t rl_s16_logistic_q3(int16_t x) {
    if (x == 0) return 1 << 14;
    const int16_t magnitude = x > 0 ? x : wrap16(-x);
    /* 1 / (1 + exp(-|x|)): 2 / (1 + e) in Q2.13 is the half of it in Q1.14, rescaled to Q0.15 */
    const int16_t positive = shift_left_saturating16(two_over_one_plus(exp_on_negative_values(wrap16(-magnitude), 3)), 1);
    return x > 0 ? positive : wrap16(INT16_MAX - positive);
}

int16_t rl_s16_tanh(int16_t x, int integer_bits) {
    if (x == 0) return 0;
    const int16_t negative = x < 0 ? x : wrap16(-x);
    /* (1 - exp(2n)) / (1 + exp(2n)) for n = -|x|: doubling n is one more integer bit on the same raw value */
    const int16_t e = exp_on_negative_values(negative, integer_bits + 1);
    const int16_t t = shift_left_saturating16(wrap16(two_over_one_plus(e) - (1 << 13)), 2);
    return x < 0 ? wrap16(-t) : t;
}
