/* f32_rsum__avx2.c — a row's sum in XNNPACK's AVX order (f32_rsum.h), the scalar kernel's lanes as registers:
 * four 8-lane sums take 32 values a step, the 8-value blocks left go to the first three in turn, then
 * (acc0 + acc2) + (acc1 + acc3); the last 1-7 values through a masked load added to their lanes (the other lanes
 * add +0, which changes no sum: a lane starts at +0 and can reach -0 only from two -0 terms); the fold as the
 * scalar kernel's. The same bits. */
#include <immintrin.h>

#include "f32_rsum.h"
#include "f32_vexp__avx2.h"

float f32_rsum__avx2(size_t n, const float *x) {
    __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(x + i));
        acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(x + i + 8));
        acc2 = _mm256_add_ps(acc2, _mm256_loadu_ps(x + i + 16));
        acc3 = _mm256_add_ps(acc3, _mm256_loadu_ps(x + i + 24));
    }
    if (i + 8 <= n) acc0 = _mm256_add_ps(acc0, _mm256_loadu_ps(x + i)), i += 8;
    if (i + 8 <= n) acc1 = _mm256_add_ps(acc1, _mm256_loadu_ps(x + i)), i += 8;
    if (i + 8 <= n) acc2 = _mm256_add_ps(acc2, _mm256_loadu_ps(x + i)), i += 8;
    __m256 lanes = _mm256_add_ps(_mm256_add_ps(acc0, acc2), _mm256_add_ps(acc1, acc3));
    if (i < n) lanes = _mm256_add_ps(lanes, _mm256_maskload_ps(x + i, rl_avx2_tail_mask(n - i)));
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(lanes), _mm256_extractf128_ps(lanes, 1));
    /* (half0 + half2) + (half1 + half3) */
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}
