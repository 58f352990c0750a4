/* f32_s16_vcvt__avx2.c — f32_s16_vcvt (s16_velementwise.h) eight floats at a time: vmulps by the float reciprocal,
 * vcvtps2dq (half to even under the default rounding; NaN and overflow give INT32_MIN, as the scalar kernel
 * spells out), a wrapping vpaddd of the zero point and vpackssdw's saturation as the clamp. The last n % 8 go
 * through the scalar kernel, whose division path they take there too. */
#include <immintrin.h>

#include "s16_velementwise.h"

void f32_s16_vcvt__avx2(size_t n, double scale, int32_t zero_point, const float *x, int16_t *y) {
    const __m256 inverse = _mm256_set1_ps((float)(1.0 / scale));
    const __m256i zp = _mm256_set1_epi32(zero_point);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i lo = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i), inverse)), zp);
        const __m256i hi = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8), inverse)), zp);
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
        _mm256_storeu_si256((__m256i *)(y + i), packed);
    }
    for (; i + 8 <= n; i += 8) {
        const __m256i v = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i), inverse)), zp);
        const __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        _mm_storeu_si128((__m128i *)(y + i), packed);
    }
    f32_s16_vcvt__scalar(n - i, scale, zero_point, x + i, y + i);
}
