/* f32_vsigmoid__avx2.c — logistic (vactivation.h), AVX2 + FMA, eight values a step: XNNPACK's rr1_p5_div
 * sigmoid. For z = -|x|, e^z = 2^n * e^t with n = round(z / ln 2) (a magic bias added leaves n, and the
 * exponent's bias, in the low mantissa bits, which shift into place as 2^n) and t = z - n ln 2; e^t - 1 ~ t p(t)
 * with p of degree 4; f = e^z / (e^z + 1), 0 below the cutoff where e^z would be subnormal (the reference's
 * result there is below 2^-126), and 1 - f for positive x. A last n % 8 values go through masked loads and
 * stores, which touch no element past n. */
#include <immintrin.h>

#include "vactivation.h"

static __m256 sigmoid8(__m256 vx) {
    const __m256 sign_mask = _mm256_set1_ps(-0.0f), magic_bias = _mm256_set1_ps(0x1.8000FEp23f);
    const __m256 z = _mm256_or_ps(vx, sign_mask); /* -|x| */
    __m256 n = _mm256_fmadd_ps(z, _mm256_set1_ps(0x1.715476p0f), magic_bias);
    const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n), 23));
    n = _mm256_sub_ps(n, magic_bias);
    __m256 t = _mm256_fmadd_ps(n, _mm256_set1_ps(-0x1.62E430p-1f), z);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0x1.0F9F9Cp-7f), t, _mm256_set1_ps(0x1.573A1Ap-5f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.555A80p-3f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.FFFDC6p-2f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.FFFFF6p-1f));
    t = _mm256_mul_ps(t, s);
    const __m256 e = _mm256_fmadd_ps(t, p, s);
    __m256 f = _mm256_div_ps(e, _mm256_add_ps(e, _mm256_set1_ps(1.0f)));
    f = _mm256_andnot_ps(_mm256_cmp_ps(z, _mm256_set1_ps(-0x1.5D589Ep+6f), _CMP_LT_OS), f);
    const __m256 one_minus = _mm256_sub_ps(_mm256_set1_ps(1.0f), f);
    return _mm256_blendv_ps(one_minus, f, vx); /* the sign bit of x picks f */
}

void f32_vsigmoid__avx2(size_t n, const float *x, float *y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, sigmoid8(_mm256_loadu_ps(x + i)));
    if (i < n) {
        const __m256i mask =
            _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n - i)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        _mm256_maskstore_ps(y + i, mask, sigmoid8(_mm256_maskload_ps(x + i, mask)));
    }
}
