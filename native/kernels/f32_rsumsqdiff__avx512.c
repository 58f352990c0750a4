/* f32_rsumsqdiff__avx512.c — a row's sum of (x - c)^2 (f32_rsum.h) in f32_rsum__avx512's registers and order
 * (XNNPACK's AVX-512 rsum, which LiteRT's MEAN runs there on the row of squares), each term a subtract and a
 * multiply (no FMA: the square is rounded before it is added); the tail's lanes past n are zeroed after the
 * square (a zero-masked subtract and multiply), so they add +0. The bits of f32_rsum__avx512 over the squares. */
#include <immintrin.h>

#include "f32_rsum.h"

static inline __m512 square_of_difference(__m512 x, __m512 c) {
    const __m512 d = _mm512_sub_ps(x, c);
    return _mm512_mul_ps(d, d);
}

float f32_rsumsqdiff__avx512(size_t n, const float *x, float c) {
    const __m512 vc = _mm512_set1_ps(c);
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm512_add_ps(acc0, square_of_difference(_mm512_loadu_ps(x + i), vc));
        acc1 = _mm512_add_ps(acc1, square_of_difference(_mm512_loadu_ps(x + i + 16), vc));
    }
    if (i + 16 <= n) acc0 = _mm512_add_ps(acc0, square_of_difference(_mm512_loadu_ps(x + i), vc)), i += 16;
    acc0 = _mm512_add_ps(acc0, acc1);
    if (i < n) {
        const __mmask16 mask = (__mmask16)((1u << (n - i)) - 1u);
        const __m512 d = _mm512_maskz_sub_ps(mask, _mm512_maskz_loadu_ps(mask, x + i), vc);
        acc0 = _mm512_add_ps(acc0, _mm512_maskz_mul_ps(mask, d, d));
    }
    const __m256 eight = _mm256_add_ps(_mm512_castps512_ps256(acc0), _mm512_extractf32x8_ps(acc0, 1));
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehdup_ps(pairs)));
}
