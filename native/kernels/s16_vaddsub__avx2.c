/* s16_vaddsub__avx2.c — s16_vaddsub (s16_velementwise.h) on eight values at a time, in 32-bit lanes. Every multiplier
 * is positive and every shift a right one (prepare refuses the rest), so each rescale is gemmlowp's
 * SaturatingRoundingDoublingHighMul as floor((x * m + 2^30) / 2^31) (vpmuldq on even and odd lanes; no saturation
 * with a positive multiplier) and RoundingDivideByPOT's mask-and-threshold, as s32_s8_requantize_fixedpoint__avx2
 * computes them; one_rounding_blocks' single rounding is a 64-bit product, rounded and shifted. The last n % 8
 * (past every block of 16) go through the scalar kernel. */
#include <immintrin.h>

#include "s16_velementwise.h"

typedef struct {
    __m256i multiplier, mask, threshold, half_total;
    __m128i right, total;
} rescale;

static rescale rescale_of(int32_t multiplier, int32_t shift) {
    const int32_t right = -shift;
    rescale r;
    r.multiplier = _mm256_set1_epi64x(multiplier);
    r.mask = _mm256_set1_epi32((int32_t)(((int64_t)1 << right) - 1));
    r.threshold = _mm256_srli_epi32(r.mask, 1);
    r.right = _mm_cvtsi32_si128(right);
    r.total = _mm_cvtsi32_si128(31 + right);
    r.half_total = _mm256_set1_epi64x((int64_t)1 << (30 + right));
    return r;
}

/* One rounding: (x * m + 2^(30 + right)) >> (31 + right) in 64-bit lanes. AVX2 has no arithmetic 64-bit shift,
 * so a negative sum is complemented around a logical one (~(~v >> k) is v >> k rounded down). */
static __m256i shift_rounded64(__m256i product, const rescale *r) {
    const __m256i v = _mm256_add_epi64(product, r->half_total);
    const __m256i sign = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_xor_si256(_mm256_srl_epi64(_mm256_xor_si256(v, sign), r->total), sign);
}

static __m256i apply_once(__m256i x, const rescale *r) {
    const __m256i even = shift_rounded64(_mm256_mul_epi32(x, r->multiplier), r);
    const __m256i odd = shift_rounded64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), r->multiplier), r);
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

static __m256i apply(__m256i x, const rescale *r) {
    const __m256i half = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(x, r->multiplier), half), 31);
    const __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), r->multiplier), half);
    const __m256i high = _mm256_blend_epi32(even, _mm256_slli_epi64(_mm256_srli_epi64(odd, 31), 32), 0xAA);
    const __m256i remainder = _mm256_and_si256(high, r->mask);
    const __m256i threshold = _mm256_sub_epi32(r->threshold, _mm256_cmpgt_epi32(_mm256_setzero_si256(), high));
    return _mm256_sub_epi32(_mm256_sra_epi32(high, r->right), _mm256_cmpgt_epi32(remainder, threshold));
}

void s16_vaddsub__avx2(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b, int16_t *y) {
    const rescale ra = rescale_of(p->a_multiplier, p->a_shift), rb = rescale_of(p->b_multiplier, p->b_shift);
    const rescale ro = rescale_of(p->out_multiplier, p->out_shift);
    const __m128i left = _mm_cvtsi32_si128(p->left_shift);
    const __m256i lo = _mm256_set1_epi32(p->act_min), hi = _mm256_set1_epi32(p->act_max);
    const int sub = p->kind == RL_S16_SUB;
    const size_t blocks = p->one_rounding_blocks ? n - n % 16 : 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256i va = _mm256_sll_epi32(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(a + i))), left);
        const __m256i vb = _mm256_sll_epi32(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(b + i))), left);
        const int once = i < blocks;
        const __m256i sa = once ? apply_once(va, &ra) : apply(va, &ra);
        const __m256i sb = once ? apply_once(vb, &rb) : apply(vb, &rb);
        __m256i r = apply(sub ? _mm256_sub_epi32(sa, sb) : _mm256_add_epi32(sa, sb), &ro);
        r = _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
        const __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
        _mm_storeu_si128((__m128i *)(y + i), packed);
    }
    s16_vaddsub__scalar(n - i, p, a + i, b + i, y + i);
}
