/* f32_vexp__avx512.h — e^z of sixteen values z <= 0 (or NaN), AVX-512F: the step of f32_vexp.h's
 * rl_f32_expminus, operation for operation (XNNPACK's avx512f_rr2_p5 kernel, the one its config picks on an
 * AVX-512 CPU; its vscalefps variants round otherwise), the mask of a last n % 16 values, and a sixteen-lane
 * sum, shared by the AVX-512 softmax kernels. */
#ifndef RILLET_F32_VEXP_AVX512_H
#define RILLET_F32_VEXP_AVX512_H

#include <immintrin.h>

#include "f32_vexp__avx2.h"

static inline __m512 rl_avx512_expminus(__m512 z) {
    const __m512 magic_bias = _mm512_set1_ps(RL_VEXP_MAGIC_BIAS);
    __m512 n = _mm512_fmadd_ps(z, _mm512_set1_ps(RL_VEXP_LOG2E), magic_bias);
    const __m512 s = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(n), 23));
    n = _mm512_sub_ps(n, magic_bias);
    __m512 t = _mm512_fmadd_ps(n, _mm512_set1_ps(RL_VEXP_MINUS_LN2_HI), z);
    t = _mm512_fmadd_ps(n, _mm512_set1_ps(RL_VEXP_MINUS_LN2_LO), t);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(RL_VEXP_C5), t, _mm512_set1_ps(RL_VEXP_C4));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(RL_VEXP_C3));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(RL_VEXP_C2));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(RL_VEXP_C1));
    t = _mm512_mul_ps(t, s);
    const __m512 e = _mm512_fmadd_ps(t, p, s);
    /* 0 where z < cutoff; "not less than, unordered" keeps a NaN's e, which is NaN */
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(z, _mm512_set1_ps(RL_VEXP_CUTOFF), _CMP_NLT_UQ), e);
}

/* Lanes 0 .. left - 1, for 1 <= left <= 15. */
static inline __mmask16 rl_avx512_tail_mask(size_t left) { return (__mmask16)((1u << left) - 1u); }

/* The sum of sixteen lanes in _mm512_reduce_add_ps's order (gcc's and clang's, which XNNPACK's kernels call):
 * (l + l+8), then AVX2's order on the eight. */
static inline float rl_avx512_hsum(__m512 v) {
    return rl_avx2_hsum(_mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1)));
}

#endif
