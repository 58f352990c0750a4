/* f32_qs8_vcvt__avx2.c — f32_s8_quantize_ref, 32 floats a step, then 8, then the last 1-7 through masked
 * loads: x * inverse_scale, clamped to [-128 - zero_point, 127 - zero_point] by the reference's own comparisons
 * (_mm256_max_ps(v, lo) is v > lo ? v : lo, so NaN goes to lo), rounded by vcvtps2dq in the default rounding
 * mode (to nearest, ties to even: nearbyintf's), plus the zero point. The sums already sit in int8's range, so
 * the saturating packs are exact. */
#include <immintrin.h>
#include <string.h>

#include "vcvt.h"

static __m256i convert8(__m256 x, __m256 scale, __m256 lo, __m256 hi, __m256i zero_point) {
    const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(x, scale), lo), hi);
    return _mm256_add_epi32(_mm256_cvtps_epi32(v), zero_point);
}

/* 8 int32 lanes (in int8 range) to 8 bytes in order. */
static __m128i narrow8(__m256i v) {
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return _mm_packs_epi16(w, w);
}

void f32_qs8_vcvt__avx2(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y) {
    const __m256 scale = _mm256_set1_ps(inverse_scale);
    const __m256 lo = _mm256_set1_ps((float)(-128 - zero_point)), hi = _mm256_set1_ps((float)(127 - zero_point));
    const __m256i zp = _mm256_set1_epi32(zero_point);
    const size_t n = (size_t)count;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i a = convert8(_mm256_loadu_ps(x + i), scale, lo, hi, zp);
        const __m256i b = convert8(_mm256_loadu_ps(x + i + 8), scale, lo, hi, zp);
        const __m256i c = convert8(_mm256_loadu_ps(x + i + 16), scale, lo, hi, zp);
        const __m256i d = convert8(_mm256_loadu_ps(x + i + 24), scale, lo, hi, zp);
        /* packs work within 128-bit lanes: ab = a0 b0 a1 b1 (4 int16 each), abcd = a0 b0 c0 d0 a1 b1 c1 d1
         * (4 bytes each); the dword permute puts them back in order. */
        const __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
        const __m256i abcd = _mm256_packs_epi16(ab, cd);
        _mm256_storeu_si256((__m256i *)(y + i),
                            _mm256_permutevar8x32_epi32(abcd, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
    }
    for (; i + 8 <= n; i += 8)
        _mm_storel_epi64((__m128i *)(y + i), narrow8(convert8(_mm256_loadu_ps(x + i), scale, lo, hi, zp)));
    if (i < n) { /* never read past the input: masked-off lanes are not loaded */
        const int k = (int)(n - i);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        int8_t bytes[16];
        _mm_storeu_si128((__m128i *)bytes, narrow8(convert8(_mm256_maskload_ps(x + i, mask), scale, lo, hi, zp)));
        memcpy(y + i, bytes, (size_t)k);
    }
}
