/* f32_rsum__avx512.c — a row's sum in the order of XNNPACK's AVX-512 rsum kernel (avx512f_u32_acc2, what its
 * config picks on an AVX-512 CPU, so LiteRT's MEAN and SUM over the last axis there): two 16-lane sums take 32
 * values a step, a 16-value block left goes to the first, the two added, then the last 1-15 values through a
 * zero-masked load (nothing past n is read) added to their lanes (the other lanes add +0, which changes no sum),
 * and the 16 lanes fold as (l + l+8), (l + l+4), then (0 + 2) + (1 + 3). Within rounding of the scalar kernel's
 * AVX order, not its bits (f32_rsum.h). */
#include <immintrin.h>

#include "f32_rsum.h"

float f32_rsum__avx512(size_t n, const float *x) {
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm512_add_ps(acc0, _mm512_loadu_ps(x + i));
        acc1 = _mm512_add_ps(acc1, _mm512_loadu_ps(x + i + 16));
    }
    if (i + 16 <= n) acc0 = _mm512_add_ps(acc0, _mm512_loadu_ps(x + i)), i += 16;
    acc0 = _mm512_add_ps(acc0, acc1);
    if (i < n) acc0 = _mm512_add_ps(acc0, _mm512_maskz_loadu_ps((__mmask16)((1u << (n - i)) - 1u), x + i));
    const __m256 eight = _mm256_add_ps(_mm512_castps512_ps256(acc0), _mm512_extractf32x8_ps(acc0, 1));
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_movehdup_ps(pairs)));
}
