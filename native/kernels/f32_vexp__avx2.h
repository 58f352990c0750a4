/* f32_vexp__avx2.h — e^z of eight values z <= 0 (or NaN), AVX2 + FMA: the step of f32_vexp.h's rl_f32_expminus,
 * operation for operation, and the mask of a last n % 8 values, shared by the softmax and GELU kernels. */
#ifndef RILLET_F32_VEXP_AVX2_H
#define RILLET_F32_VEXP_AVX2_H

#include <immintrin.h>

#include "f32_vexp.h"

static inline __m256 rl_avx2_expminus(__m256 z) {
    const __m256 magic_bias = _mm256_set1_ps(RL_VEXP_MAGIC_BIAS);
    __m256 n = _mm256_fmadd_ps(z, _mm256_set1_ps(RL_VEXP_LOG2E), magic_bias);
    const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n), 23));
    n = _mm256_sub_ps(n, magic_bias);
    __m256 t = _mm256_fmadd_ps(n, _mm256_set1_ps(RL_VEXP_MINUS_LN2_HI), z);
    t = _mm256_fmadd_ps(n, _mm256_set1_ps(RL_VEXP_MINUS_LN2_LO), t);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(RL_VEXP_C5), t, _mm256_set1_ps(RL_VEXP_C4));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(RL_VEXP_C3));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(RL_VEXP_C2));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(RL_VEXP_C1));
    t = _mm256_mul_ps(t, s);
    const __m256 e = _mm256_fmadd_ps(t, p, s);
    return _mm256_andnot_ps(_mm256_cmp_ps(z, _mm256_set1_ps(RL_VEXP_CUTOFF), _CMP_LT_OQ), e);
}

/* Lanes 0 .. left - 1 set, for 1 <= left <= 7. */
static inline __m256i rl_avx2_tail_mask(size_t left) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The sum of eight lanes, (l + l+4), then (0 + 2) + (1 + 3). */
static inline float rl_avx2_hsum(__m256 v) {
    const __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 pairs = _mm_add_ps(h, _mm_movehl_ps(h, h));
    return _mm_cvtss_f32(_mm_add_ss(pairs, _mm_shuffle_ps(pairs, pairs, 1)));
}

#endif
