/* f32_qd8_quantize__avx2.c — the hybrid ops' input quantizations, AVX2, bit for bit the references':
 * XNNPACK's qd8 (f32_qd8_quantize_ref: ties to even, which vcvtps2dq does in the default rounding mode) and
 * TFLite's AsymmetricQuantizeFloats (f32_qs8_asymmetric_quantize_tflite_ref: ties away from zero, done exactly
 * as truncate, then one step away from zero where the dropped fraction is at least one half). The scale and
 * zero point are the references' own code (f32_qs8_quantization.h) on the vector min and max (min and max
 * are exact, so their order does not matter); only the loops differ. Each step is its own function
 * (qd8_gemm.h) so that threads can share an image. An image of mobilenet_v2's second block is
 * 110,592 values: the scalar loops' libm rounding cost more than that layer's depthwise products. */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "f32_qs8_quantization.h"
#include "kernels.h"

/* Widens [*lo, *hi] to hold the n values (NaN skipped: vminps and vmaxps return their second operand then). */
static inline void rminmax(int64_t n, const float *x, float *lo, float *hi) {
    __m256 vlo = _mm256_set1_ps(*lo), vhi = _mm256_set1_ps(*hi);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        vlo = _mm256_min_ps(v, vlo), vhi = _mm256_max_ps(v, vhi); /* keeps 0, not -0, as the reference */
    }
    float l[8], h[8];
    _mm256_storeu_ps(l, vlo), _mm256_storeu_ps(h, vhi);
    float a = *lo, b = *hi;
    for (int k = 0; k < 8; ++k) a = l[k] < a ? l[k] : a, b = h[k] > b ? h[k] : b;
    for (; i < n; ++i) a = x[i] < a ? x[i] : a, b = x[i] > b ? x[i] : b;
    *lo = a, *hi = b;
}

/* 8 int32 to 8 int8 at q (values already within [-128, 127]). */
static void store8(__m256i v, int8_t *q) {
    const __m128i v16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storel_epi64((__m128i *)(void *)q, _mm_packs_epi16(v16, v16));
}

static inline void qd8_values(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    const int32_t zp = p->zero_point;
    const float below = (float)(-128 - zp), above = (float)(127 - zp);
    const __m256 vscale = _mm256_set1_ps(p->multiplier), vbelow = _mm256_set1_ps(below), vabove = _mm256_set1_ps(above);
    const __m256i vzp = _mm256_set1_epi32(zp);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* the reference's v > below ? v : below, then v < above ? v : above */
        const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), vscale), vbelow), vabove);
        store8(_mm256_add_epi32(_mm256_cvtps_epi32(v), vzp), q + i);
    }
    for (; i < n; ++i) {
        float v = x[i] * p->multiplier;
        v = v > below ? v : below;
        v = v < above ? v : above;
        q[i] = (int8_t)((int32_t)nearbyintf(v) + zp);
    }
}

static inline void tflite_values(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    if (p->all_zero) {
        memset(q, 0, (size_t)n);
        return;
    }
    const __m256 vinverse = _mm256_set1_ps(p->multiplier), vhalf = _mm256_set1_ps(0.5f), vone = _mm256_set1_ps(1.0f);
    const __m256 vsign = _mm256_set1_ps(-0.0f), vlow = _mm256_set1_ps(-256.0f), vhigh = _mm256_set1_ps(256.0f);
    const __m256i vzp = _mm256_set1_epi32(p->zero_point), vmin = _mm256_set1_epi32(-128), vmax = _mm256_set1_epi32(127);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_mul_ps(vinverse, _mm256_loadu_ps(x + i));
        const __m256 whole = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        const __m256 fraction = _mm256_andnot_ps(vsign, _mm256_sub_ps(v, whole)); /* exact */
        const __m256 away = _mm256_or_ps(_mm256_and_ps(v, vsign), vone);          /* +-1 with v's sign */
        const __m256 rounded = _mm256_add_ps(whole, _mm256_and_ps(_mm256_cmp_ps(fraction, vhalf, _CMP_GE_OQ), away));
        /* within [-256, 256] first, as the reference: a NaN (vmaxps returns its second operand) at -256, not at
         * 0x80000000, which the zero point's add would wrap */
        const __m256 bounded = _mm256_min_ps(_mm256_max_ps(rounded, vlow), vhigh);
        const __m256i r = _mm256_add_epi32(_mm256_cvtps_epi32(bounded), vzp);
        store8(_mm256_min_epi32(_mm256_max_epi32(r, vmin), vmax), q + i);
    }
    for (; i < n; ++i) {
        const float r = roundf(p->multiplier * x[i]);
        const int32_t v = (r >= -256.0f && r <= 256.0f ? (int32_t)r : (r > 256.0f ? 256 : -256)) + p->zero_point;
        q[i] = (int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
    }
}

void f32_rminmax__avx2(int64_t n, const float *x, float *lo, float *hi) { rminmax(n, x, lo, hi); }

void f32_qd8_quantize_values__avx2(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values(n, x, q, p);
}

void f32_qs8_quantize_values_tflite__avx2(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    tflite_values(n, x, q, p);
}

RL_F32_QS8_QUANTIZE_ONE_STEP(f32_qd8_quantize__avx2, rminmax, rl_qd8_quantization_of, qd8_values)

RL_F32_QS8_QUANTIZE_ONE_STEP(f32_qs8_asymmetric_quantize_tflite__avx2, rminmax, rl_tflite_quantization_of,
                             tflite_values)
