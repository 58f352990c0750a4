/* qs8_f32_vcvt__avx2.c — qs8_f32_vcvt__scalar, 32 bytes a step, then 8, then the last 1-7 one at a time:
 * bytes sign-extended to int32, less the zero point, converted (exactly) and multiplied by the scale, the
 * scalar kernel's one rounding. */
#include <immintrin.h>
#include <string.h>

#include "vcvt.h"

static __m256 convert8(__m128i bytes, __m256i zero_point, __m256 scale) {
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepi8_epi32(bytes), zero_point)), scale);
}

void qs8_f32_vcvt__avx2(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y) {
    const __m256 vscale = _mm256_set1_ps(scale);
    const __m256i zp = _mm256_set1_epi32(zero_point);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m128i lo = _mm_loadu_si128((const __m128i *)(x + i));
        const __m128i hi = _mm_loadu_si128((const __m128i *)(x + i + 16));
        _mm256_storeu_ps(y + i, convert8(lo, zp, vscale));
        _mm256_storeu_ps(y + i + 8, convert8(_mm_srli_si128(lo, 8), zp, vscale));
        _mm256_storeu_ps(y + i + 16, convert8(hi, zp, vscale));
        _mm256_storeu_ps(y + i + 24, convert8(_mm_srli_si128(hi, 8), zp, vscale));
    }
    for (; i + 8 <= n; i += 8) {
        int64_t eight; /* exactly 8 bytes: nothing past the input is read */
        memcpy(&eight, x + i, sizeof eight);
        _mm256_storeu_ps(y + i, convert8(_mm_cvtsi64_si128(eight), zp, vscale));
    }
    for (; i < n; ++i) y[i] = (float)(x[i] - zero_point) * scale;
}
