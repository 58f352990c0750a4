/* s16_vtanh__avx2.c — gemmlowp's tanh of values with `integer_bits` (0 to 6) integer bits to Q0.15
 * (vactivation.h), sixteen a step with s16_fixedpoint__avx2.h, bit for bit with rl_s16_tanh: (1 - e) / (1 + e)
 * for e = exp(-2|x|) (doubling is one more integer bit on the same raw value), the sign of x put back; 0 at 0.
 * A last n % 16 values go through a block on the stack, so nothing past n is read or written. */
#include <string.h>

#include "s16_fixedpoint__avx2.h"
#include "vactivation.h"

static __m256i tanh16(__m256i x, int integer_bits) {
    const __m256i zero = _mm256_setzero_si256();
    const __m256i negative = _mm256_sub_epi16(zero, _mm256_abs_epi16(x)); /* wraps at -32768, as the scalar's */
    const __m256i e = rl_s16_exp_on_negative_values(negative, integer_bits + 1);
    const __m256i t = rl_s16_shift_left_saturating(
        _mm256_sub_epi16(rl_s16_two_over_one_plus(e), _mm256_set1_epi16(1 << 13)), 2);
    const __m256i v = _mm256_blendv_epi8(t, _mm256_sub_epi16(zero, t), _mm256_cmpgt_epi16(zero, x));
    return _mm256_andnot_si256(_mm256_cmpeq_epi16(x, zero), v);
}

void s16_vtanh__avx2(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(y + i), tanh16(_mm256_loadu_si256((const __m256i *)(x + i)), integer_bits));
    if (i < n) {
        int16_t block[16] = {0};
        memcpy(block, x + i, (n - i) * sizeof(int16_t));
        _mm256_storeu_si256((__m256i *)block, tanh16(_mm256_loadu_si256((const __m256i *)block), integer_bits));
        memcpy(y + i, block, (n - i) * sizeof(int16_t));
    }
}
