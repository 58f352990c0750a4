/* s16_fixedpoint__neon.h — gemmlowp's int16 fixed-point logistic and tanh (qs8_lstm_activations_ref.c, the
 * specification) on eight values at once, for s16_vsigmoid__neon.c and s16_vtanh__neon.c, every step the same
 * integer operation as the scalar's, so every lane gives its bits: vqrdmulhq_s16 is gemmlowp's saturating
 * rounding doubling high multiply (its own NEON path uses it), vqshlq_s16 its saturating multiply by a power of
 * two, int16 adds wrap as vaddq_s16 does and the one gemmlowp saturates is vqaddq_s16. */
#ifndef RILLET_S16_FIXEDPOINT_NEON_H
#define RILLET_S16_FIXEDPOINT_NEON_H

#include <arm_neon.h>
#include <stdint.h>

#include "quant.h"

static inline int16x8_t rl_s16_constant(int32_t raw32) {
    return vdupq_n_s16((int16_t)rl_rounding_divide_by_pot(raw32, 16));
}

/* RoundingDivideByPOT: x / 2^exponent, halves away from zero (exponent 1 to 14). */
static inline int16x8_t rl_s16_divide_pot(int16x8_t x, int exponent) {
    const int16_t mask = (int16_t)((1 << exponent) - 1);
    const int16x8_t remainder = vandq_s16(x, vdupq_n_s16(mask));
    /* threshold: mask / 2, plus 1 for negative x (the comparison's all-ones is -1) */
    const int16x8_t threshold = vsubq_s16(vdupq_n_s16((int16_t)(mask >> 1)),
                                          vreinterpretq_s16_u16(vcltq_s16(x, vdupq_n_s16(0))));
    return vsubq_s16(vshlq_s16(x, vdupq_n_s16((int16_t)-exponent)),
                     vreinterpretq_s16_u16(vcgtq_s16(remainder, threshold)));
}

static inline int16x8_t rl_s16_shift_left_saturating(int16x8_t x, int exponent) {
    return vqshlq_s16(x, vdupq_n_s16((int16_t)exponent));
}

static inline int16x8_t rl_s16_exp_on_quarter_interval(int16x8_t a) {
    const int16x8_t constant_term = rl_s16_constant(1895147668), one_third = rl_s16_constant(715827883);
    const int16x8_t x = vaddq_s16(a, vdupq_n_s16(1 << 12));
    const int16x8_t x2 = vqrdmulhq_s16(x, x), x3 = vqrdmulhq_s16(x2, x), x4 = vqrdmulhq_s16(x2, x2);
    const int16x8_t x4_over_4 = rl_s16_divide_pot(x4, 2);
    const int16x8_t tail = rl_s16_divide_pot(vaddq_s16(vqrdmulhq_s16(vaddq_s16(x4_over_4, x3), one_third), x2), 1);
    return vqaddq_s16(constant_term, vqrdmulhq_s16(constant_term, vaddq_s16(x, tail)));
}

static inline int16x8_t rl_s16_exp_on_negative_values(int16x8_t a, int bits) {
    static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int fraction_bits = 15 - bits;
    const int16_t one_quarter = (int16_t)(1 << (fraction_bits - 2));
    const int16x8_t a_mod_quarter = vsubq_s16(vandq_s16(a, vdupq_n_s16((int16_t)(one_quarter - 1))),
                                              vdupq_n_s16(one_quarter));
    int16x8_t result = rl_s16_exp_on_quarter_interval(bits ? rl_s16_shift_left_saturating(a_mod_quarter, bits)
                                                           : a_mod_quarter);
    const int16x8_t remainder = vsubq_s16(a_mod_quarter, a);
    for (int exponent = -2; exponent <= 4; ++exponent) {
        if (bits <= exponent) continue;
        const uint16x8_t set = vtstq_s16(remainder, vdupq_n_s16((int16_t)(1 << (fraction_bits + exponent))));
        result = vbslq_s16(set, vqrdmulhq_s16(result, rl_s16_constant(multipliers[exponent + 2])), result);
    }
    if (bits > 5) /* below -32: 0 */
        result = vbslq_s16(vcltq_s16(a, rl_s16_constant(-(1 << (36 - bits)))), vdupq_n_s16(0), result);
    return vbslq_s16(vceqq_s16(a, vdupq_n_s16(0)), vdupq_n_s16(INT16_MAX), result);
}

static inline int16x8_t rl_s16_two_over_one_plus(int16x8_t a) {
    /* RoundingHalfSum(a, 1): (a + 32767 + 1) / 2, exact in vrhadd's wider sum for a >= 0 */
    const int16x8_t half_denominator =
        vreinterpretq_s16_u16(vrhaddq_u16(vreinterpretq_u16_s16(a), vdupq_n_u16(INT16_MAX)));
    int16x8_t x = vaddq_s16(rl_s16_constant(1515870810), vqrdmulhq_s16(half_denominator, rl_s16_constant(-1010580540)));
    for (int i = 0; i < 3; ++i) {
        const int16x8_t one_minus = vsubq_s16(vdupq_n_s16(1 << 13), vqrdmulhq_s16(half_denominator, x));
        x = vaddq_s16(x, rl_s16_shift_left_saturating(vqrdmulhq_s16(x, one_minus), 2));
    }
    return x;
}

#endif
