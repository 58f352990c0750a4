/* s16_fixedpoint__avx2.h — gemmlowp's int16 fixed-point logistic and tanh (qs8_lstm_activations_ref.c, the
 * specification) on sixteen values at once, every step the same integer operation, so every lane gives the
 * scalar function's bits: the rounding doubling high multiply is vpmulhrsw (both round halves up: gemmlowp's
 * nudge of 1 - 2^14 for negative products truncated toward zero is the same as adding 2^14 and flooring),
 * except -1 * -1, which saturates to 32767; int16 adds wrap as vpaddw does, and the one gemmlowp saturates is
 * vpaddsw. For s16_vsigmoid__avx2.c and s16_vtanh__avx2.c. */
#ifndef RILLET_S16_FIXEDPOINT_AVX2_H
#define RILLET_S16_FIXEDPOINT_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "quant.h"

/* A gemmlowp constant given as int32 fixed point, in 16 bits. */
static inline __m256i rl_s16_constant(int32_t raw32) {
    return _mm256_set1_epi16((int16_t)rl_rounding_divide_by_pot(raw32, 16));
}

/* SaturatingRoundingDoublingHighMul: round(a * b / 2^15), halves up; -32768 * -32768 gives 32767. */
static inline __m256i rl_s16_mul(__m256i a, __m256i b) {
    const __m256i min = _mm256_set1_epi16(INT16_MIN);
    const __m256i both_min = _mm256_and_si256(_mm256_cmpeq_epi16(a, min), _mm256_cmpeq_epi16(b, min));
    return _mm256_xor_si256(_mm256_mulhrs_epi16(a, b), both_min); /* -32768 ^ 0xFFFF = 32767 */
}

/* RoundingDivideByPOT: x / 2^exponent, halves away from zero (exponent 1 to 14). */
static inline __m256i rl_s16_divide_pot(__m256i x, int exponent) {
    const __m128i count = _mm_cvtsi32_si128(exponent);
    const int16_t mask = (int16_t)((1 << exponent) - 1);
    const __m256i remainder = _mm256_and_si256(x, _mm256_set1_epi16(mask));
    /* threshold: mask / 2, plus 1 for negative x (cmpgt gives -1) */
    const __m256i threshold = _mm256_sub_epi16(_mm256_set1_epi16((int16_t)(mask >> 1)),
                                               _mm256_cmpgt_epi16(_mm256_setzero_si256(), x));
    return _mm256_sub_epi16(_mm256_sra_epi16(x, count), _mm256_cmpgt_epi16(remainder, threshold));
}

/* SaturatingRoundingMultiplyByPOT with a positive exponent: x * 2^exponent, saturating (exponent 0 to 14). */
static inline __m256i rl_s16_shift_left_saturating(__m256i x, int exponent) {
    const int16_t threshold = (int16_t)((1 << (15 - exponent)) - 1);
    const __m256i above = _mm256_cmpgt_epi16(x, _mm256_set1_epi16(threshold));
    const __m256i below = _mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)-threshold), x);
    __m256i v = _mm256_sll_epi16(x, _mm_cvtsi32_si128(exponent));
    v = _mm256_blendv_epi8(v, _mm256_set1_epi16(INT16_MAX), above);
    return _mm256_blendv_epi8(v, _mm256_set1_epi16(INT16_MIN), below);
}

/* exp(a) for a in [-1/4, 0), a in Q0.15: a Taylor series around -1/8. */
static inline __m256i rl_s16_exp_on_quarter_interval(__m256i a) {
    const __m256i constant_term = rl_s16_constant(1895147668), one_third = rl_s16_constant(715827883);
    const __m256i x = _mm256_add_epi16(a, _mm256_set1_epi16(1 << 12));
    const __m256i x2 = rl_s16_mul(x, x), x3 = rl_s16_mul(x2, x), x4 = rl_s16_mul(x2, x2);
    const __m256i x4_over_4 = rl_s16_divide_pot(x4, 2);
    const __m256i tail = rl_s16_divide_pot(
        _mm256_add_epi16(rl_s16_mul(_mm256_add_epi16(x4_over_4, x3), one_third), x2), 1);
    return _mm256_adds_epi16(constant_term, rl_s16_mul(constant_term, _mm256_add_epi16(x, tail)));
}

/* exp(a) for a <= 0 with `bits` integer bits (0 to 7), to Q0.15: exp of a mod 1/4, times exp(-2^k) for each
 * bit k of the rest. */
static inline __m256i rl_s16_exp_on_negative_values(__m256i a, int bits) {
    static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    const int fraction_bits = 15 - bits;
    const int16_t one_quarter = (int16_t)(1 << (fraction_bits - 2));
    const __m256i a_mod_quarter = _mm256_sub_epi16(_mm256_and_si256(a, _mm256_set1_epi16((int16_t)(one_quarter - 1))),
                                                   _mm256_set1_epi16(one_quarter));
    __m256i result = rl_s16_exp_on_quarter_interval(bits ? rl_s16_shift_left_saturating(a_mod_quarter, bits)
                                                         : a_mod_quarter);
    const __m256i remainder = _mm256_sub_epi16(a_mod_quarter, a);
    for (int exponent = -2; exponent <= 4; ++exponent) {
        if (bits <= exponent) continue;
        const __m256i bit = _mm256_set1_epi16((int16_t)(1 << (fraction_bits + exponent)));
        const __m256i set = _mm256_cmpeq_epi16(_mm256_and_si256(remainder, bit), bit);
        result = _mm256_blendv_epi8(result, rl_s16_mul(result, rl_s16_constant(multipliers[exponent + 2])), set);
    }
    if (bits > 5) /* below -32: 0 */
        result = _mm256_andnot_si256(_mm256_cmpgt_epi16(rl_s16_constant(-(1 << (36 - bits))), a), result);
    return _mm256_blendv_epi8(result, _mm256_set1_epi16(INT16_MAX), _mm256_cmpeq_epi16(a, _mm256_setzero_si256()));
}

/* 2 / (1 + a) for a in [0, 1], in Q2.13: Newton-Raphson from 48/17 - 32/17 d, d = (1 + a) / 2 rounded. */
static inline __m256i rl_s16_two_over_one_plus(__m256i a) {
    /* RoundingHalfSum(a, 1): (a + 32767 + 1) / 2, exact in vpavgw's 17 bits for a >= 0 */
    const __m256i half_denominator = _mm256_avg_epu16(a, _mm256_set1_epi16(INT16_MAX));
    __m256i x =
        _mm256_add_epi16(rl_s16_constant(1515870810), rl_s16_mul(half_denominator, rl_s16_constant(-1010580540)));
    for (int i = 0; i < 3; ++i) {
        const __m256i one_minus = _mm256_sub_epi16(_mm256_set1_epi16(1 << 13), rl_s16_mul(half_denominator, x));
        x = _mm256_add_epi16(x, rl_s16_shift_left_saturating(rl_s16_mul(x, one_minus), 2));
    }
    return x;
}

#endif
