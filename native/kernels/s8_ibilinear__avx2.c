/* s8_ibilinear__avx2.c — int8 bilinear resizing (s8_ibilinear__scalar.c's arithmetic), 8 channels a step, AVX2.
 *
 * The column blend tl * 2048 + (tr - tl) * wh is the same integer as tl * (2048 - wh) + tr * wh, which one
 * vpmaddwd gives from the interleaved (tl, tr) pairs and the weights (2048 - wh, wh): both fit int16 and the
 * pair sum int32, so it is exact. The row blend keeps the scalar form, (t << 11) + (b - t) * wv with vpmulld,
 * |(b - t) * wv| < 2^30; then + 2^21 and an arithmetic shift by 22, as the scalar kernel. The result lies
 * between the four inputs, so the saturating packs never saturate.
 *
 * A pixel's last k = 1-7 channels (all of an RGB pixel's) load 8 bytes that end where the pixel ends, shifted
 * down, where the row holds 8 bytes up to there, and store 8 bytes whose extra ones land on the next pixels'
 * outputs, written after, where the row has that many left; only a row's first and last pixels go through
 * qs8_tail__avx2.h's pieces. Nothing outside the input rows or the output row is read or written.
 */
#include <immintrin.h>

#include "kernels.h"
#include "qs8_tail__avx2.h"

/* 8 channels' (t, b) blends and the row blend, rounded and shifted: 8 int32 results. */
static inline __m256i blend8(__m128i tl, __m128i tr, __m128i bl, __m128i br, __m256i vwh, __m256i vwv) {
    const __m256i t = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(tl, tr)), vwh);
    const __m256i b = _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(bl, br)), vwh);
    const __m256i acc = _mm256_add_epi32(_mm256_slli_epi32(t, 11), _mm256_mullo_epi32(_mm256_sub_epi32(b, t), vwv));
    return _mm256_srai_epi32(_mm256_add_epi32(acc, _mm256_set1_epi32(1 << 21)), 22);
}

/* The k (< 8) bytes at p in the low bytes, read as the 8 ending at p + k (p - 8 + k is inside the row). */
static inline __m128i load_ending_at(const int8_t *p, size_t k, __m128i vshift) {
    return _mm_srl_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(p + k - 8)), vshift);
}

/* 8 int32 in [-128, 127] to 8 bytes in the low half. */
static inline __m128i narrow8(__m256i v) {
    const __m128i v16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_packs_epi16(v16, v16);
}

void s8_ibilinear__avx2(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                        const rl_ibilinear_tap *cols, int32_t wv, int8_t *y) {
    const __m256i vwv = _mm256_set1_epi32(wv);
    for (size_t ox = 0; ox < out_w; ++ox) {
        const int32_t wh = cols[ox].alpha_q11;
        /* low int16 of each pair weighs tl (or bl), the high one tr (or br) */
        const __m256i vwh = _mm256_set1_epi32((int32_t)((uint32_t)wh << 16 | (uint32_t)(2048 - wh)));
        const size_t left = (size_t)cols[ox].lower * channels, right = (size_t)cols[ox].upper * channels;
        const int8_t *tl = top + left, *tr = top + right, *bl = bottom + left, *br = bottom + right;
        size_t c = 0;
        for (; c + 8 <= channels; c += 8) {
            const __m256i v = blend8(_mm_loadl_epi64((const __m128i *)(const void *)(tl + c)),
                                     _mm_loadl_epi64((const __m128i *)(const void *)(tr + c)),
                                     _mm_loadl_epi64((const __m128i *)(const void *)(bl + c)),
                                     _mm_loadl_epi64((const __m128i *)(const void *)(br + c)), vwh, vwv);
            _mm_storel_epi64((__m128i *)(void *)(y + c), narrow8(v));
        }
        if (c < channels) {
            const size_t k = channels - c;
            __m256i v;
            if (left + channels >= 8 && right + channels >= 8) {
                const __m128i vshift = _mm_cvtsi32_si128((int)(8 * (8 - k)));
                v = blend8(load_ending_at(tl + c, k, vshift), load_ending_at(tr + c, k, vshift),
                           load_ending_at(bl + c, k, vshift), load_ending_at(br + c, k, vshift), vwh, vwv);
            } else {
                v = blend8(rl_load_tail_s8(tl + c, k), rl_load_tail_s8(tr + c, k), rl_load_tail_s8(bl + c, k),
                           rl_load_tail_s8(br + c, k), vwh, vwv);
            }
            if ((out_w - 1 - ox) * channels >= 8 - k) _mm_storel_epi64((__m128i *)(void *)(y + c), narrow8(v));
            else rl_store_tail_s8(y + c, k, narrow8(v));
        }
        y += channels;
    }
}
