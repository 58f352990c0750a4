/* f32_rsumsqdiff__avx2.c — a row's sum of (x - c)^2 (f32_rsum.h) in f32_rsum__avx2's registers and order, each
 * term a subtract and a multiply (never an FMA: each square is rounded before it is added, as the two ops round
 * it); the masked tail's other lanes load 0, whose (0 - c)^2 is blended back to +0 so they add nothing. The same
 * bits as the scalar kernel. */
#include <immintrin.h>

#include "f32_rsum.h"
#include "f32_vexp__avx2.h"

static inline __m256 square_of_difference(__m256 x, __m256 c) {
    const __m256 d = _mm256_sub_ps(x, c);
    return _mm256_mul_ps(d, d);
}

float f32_rsumsqdiff__avx2(size_t n, const float *x, float c) {
    const __m256 vc = _mm256_set1_ps(c);
    __m256 acc0 = _mm256_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = _mm256_add_ps(acc0, square_of_difference(_mm256_loadu_ps(x + i), vc));
        acc1 = _mm256_add_ps(acc1, square_of_difference(_mm256_loadu_ps(x + i + 8), vc));
        acc2 = _mm256_add_ps(acc2, square_of_difference(_mm256_loadu_ps(x + i + 16), vc));
        acc3 = _mm256_add_ps(acc3, square_of_difference(_mm256_loadu_ps(x + i + 24), vc));
    }
    if (i + 8 <= n) acc0 = _mm256_add_ps(acc0, square_of_difference(_mm256_loadu_ps(x + i), vc)), i += 8;
    if (i + 8 <= n) acc1 = _mm256_add_ps(acc1, square_of_difference(_mm256_loadu_ps(x + i), vc)), i += 8;
    if (i + 8 <= n) acc2 = _mm256_add_ps(acc2, square_of_difference(_mm256_loadu_ps(x + i), vc)), i += 8;
    __m256 lanes = _mm256_add_ps(_mm256_add_ps(acc0, acc2), _mm256_add_ps(acc1, acc3));
    if (i < n) {
        const __m256i mask = rl_avx2_tail_mask(n - i);
        const __m256 tail = square_of_difference(_mm256_maskload_ps(x + i, mask), vc);
        lanes = _mm256_add_ps(lanes, _mm256_and_ps(tail, _mm256_castsi256_ps(mask)));
    }
    const __m128 half = _mm_add_ps(_mm256_castps256_ps128(lanes), _mm256_extractf128_ps(lanes, 1));
    /* (half0 + half2) + (half1 + half3) */
    const __m128 pairs = _mm_add_ps(half, _mm_movehl_ps(half, half));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}
