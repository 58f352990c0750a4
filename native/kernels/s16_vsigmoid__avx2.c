/* s16_vsigmoid__avx2.c — gemmlowp's logistic of Q3.12 values to Q0.15 (vactivation.h), sixteen a step with
 * s16_fixedpoint__avx2.h, bit for bit with rl_s16_logistic_q3: 1 / (1 + exp(-|x|)) as 2 / (1 + e) in Q2.13,
 * doubled, and 1 minus it for negative x; 1/2 at 0. A last n % 16 values go through a block on the stack, so
 * nothing past n is read or written. */
#include <string.h>

#include "s16_fixedpoint__avx2.h"
#include "vactivation.h"

static __m256i sigmoid16(__m256i x) {
    const __m256i magnitude = _mm256_abs_epi16(x); /* -32768 stays -32768, as the scalar's wrapping negation */
    const __m256i e = rl_s16_exp_on_negative_values(_mm256_sub_epi16(_mm256_setzero_si256(), magnitude), 3);
    const __m256i positive = rl_s16_shift_left_saturating(rl_s16_two_over_one_plus(e), 1);
    const __m256i negative = _mm256_sub_epi16(_mm256_set1_epi16(INT16_MAX), positive);
    const __m256i v = _mm256_blendv_epi8(negative, positive, _mm256_cmpgt_epi16(x, _mm256_setzero_si256()));
    return _mm256_blendv_epi8(v, _mm256_set1_epi16(1 << 14), _mm256_cmpeq_epi16(x, _mm256_setzero_si256()));
}

void s16_vsigmoid__avx2(size_t n, const int16_t *x, int16_t *y) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(y + i), sigmoid16(_mm256_loadu_si256((const __m256i *)(x + i))));
    if (i < n) {
        int16_t block[16] = {0};
        memcpy(block, x + i, (n - i) * sizeof(int16_t));
        _mm256_storeu_si256((__m256i *)block, sigmoid16(_mm256_loadu_si256((const __m256i *)block)));
        memcpy(y + i, block, (n - i) * sizeof(int16_t));
    }
}
