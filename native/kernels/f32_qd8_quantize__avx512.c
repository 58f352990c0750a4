/* f32_qd8_quantize__avx512.c — XNNPACK's qd8 input quantization (f32_qd8_quantize_ref) in 16 lanes, bit for bit
 * the reference's, as f32_qd8_quantize__avx2.c does it in 8: the same scale and zero point code
 * (f32_qs8_quantization.h) on the vector min and max, the same clamp and ties-to-even conversion. A hybrid
 * FULLY_CONNECTED quantizes every row at every invoke: on bert_tiny_dynamic's 64 rows of 512 the AVX2 loops
 * (one min and one max chain of 8 lanes) cost a quarter of the op. Four chains of 16 here, the quantized
 * values' tail under a mask. TFLite's quantization (DEPTHWISE_CONV_2D's) stays AVX2's. The qdu8 form writes each
 * byte plus 128 (flipped top bit) for the VNNI GEMM that multiplies it unsigned (qd8_gemm.h's gemm_u8). */
#include <immintrin.h>

#include "f32_qs8_quantization.h"
#include "kernels.h"

/* Widens [*lo, *hi] to hold the n values (NaN skipped: vminps and vmaxps return their second operand then). Each
 * lane only ever takes a value below (above) what it holds, so no lane holds -0 unless *lo (*hi) was -0, and
 * combining the lanes in any order gives the scalar loop's result. (No reduce or masked min/max intrinsics: the
 * emulated build's SIMDe lacks them.) */
static inline void rminmax(int64_t n, const float *x, float *lo, float *hi) {
    __m512 vlo0 = _mm512_set1_ps(*lo), vhi0 = _mm512_set1_ps(*hi);
    __m512 vlo1 = vlo0, vlo2 = vlo0, vlo3 = vlo0, vhi1 = vhi0, vhi2 = vhi0, vhi3 = vhi0;
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512 v0 = _mm512_loadu_ps(x + i), v1 = _mm512_loadu_ps(x + i + 16);
        const __m512 v2 = _mm512_loadu_ps(x + i + 32), v3 = _mm512_loadu_ps(x + i + 48);
        vlo0 = _mm512_min_ps(v0, vlo0), vhi0 = _mm512_max_ps(v0, vhi0);
        vlo1 = _mm512_min_ps(v1, vlo1), vhi1 = _mm512_max_ps(v1, vhi1);
        vlo2 = _mm512_min_ps(v2, vlo2), vhi2 = _mm512_max_ps(v2, vhi2);
        vlo3 = _mm512_min_ps(v3, vlo3), vhi3 = _mm512_max_ps(v3, vhi3);
    }
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        vlo0 = _mm512_min_ps(v, vlo0), vhi0 = _mm512_max_ps(v, vhi0);
    }
    float l[16], h[16];
    _mm512_storeu_ps(l, _mm512_min_ps(_mm512_min_ps(vlo0, vlo1), _mm512_min_ps(vlo2, vlo3)));
    _mm512_storeu_ps(h, _mm512_max_ps(_mm512_max_ps(vhi0, vhi1), _mm512_max_ps(vhi2, vhi3)));
    float a = *lo, b = *hi;
    for (int k = 0; k < 16; ++k) a = l[k] < a ? l[k] : a, b = h[k] > b ? h[k] : b;
    for (; i < n; ++i) a = x[i] < a ? x[i] : a, b = x[i] > b ? x[i] : b;
    *lo = a, *hi = b;
}

/* The reference's v > below ? v : below, then v < above ? v : above, rounded to nearest even (vcvtps2dq in the
 * default rounding mode), plus the zero point: within [-128, 127], so the saturating narrowing is exact. */
static inline __m512i qd8_lanes(__m512 x, __m512 vscale, __m512 vbelow, __m512 vabove, __m512i vzp) {
    const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, vscale), vbelow), vabove);
    return _mm512_add_epi32(_mm512_cvtps_epi32(v), vzp);
}

/* flip: 0, or 0x80 in every byte (the qdu8 form), XORed into the converted bytes. */
static inline void qd8_values(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p, __m128i flip) {
    const int32_t zp = p->zero_point;
    const __m512 vscale = _mm512_set1_ps(p->multiplier);
    const __m512 vbelow = _mm512_set1_ps((float)(-128 - zp)), vabove = _mm512_set1_ps((float)(127 - zp));
    const __m512i vzp = _mm512_set1_epi32(zp);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm_storeu_si128((__m128i *)(void *)(q + i),
                         _mm_xor_si128(_mm512_cvtsepi32_epi8(qd8_lanes(_mm512_loadu_ps(x + i), vscale, vbelow, vabove,
                                                                       vzp)), flip));
    if (i < n) {
        const __mmask16 tail = (__mmask16)((UINT32_C(1) << (n - i)) - 1);
        _mm_mask_storeu_epi8(q + i, tail, _mm_xor_si128(_mm512_cvtsepi32_epi8(qd8_lanes(
                                                            _mm512_maskz_loadu_ps(tail, x + i), vscale, vbelow,
                                                            vabove, vzp)), flip));
    }
}

void f32_rminmax__avx512(int64_t n, const float *x, float *lo, float *hi) { rminmax(n, x, lo, hi); }

void f32_qd8_quantize_values__avx512(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values(n, x, q, p, _mm_setzero_si128());
}

static inline float quantize(int64_t n, const float *x, int8_t *q, int32_t *zero_point, __m128i flip) {
    float lo = 0.0f, hi = 0.0f;
    rminmax(n, x, &lo, &hi);
    const rl_f32_qs8_quantization p = rl_qd8_quantization_of(lo, hi);
    qd8_values(n, x, q, &p, flip);
    *zero_point = p.zero_point;
    return p.scale;
}

float f32_qd8_quantize__avx512(int64_t n, const float *x, int8_t *q, int32_t *zero_point) {
    return quantize(n, x, q, zero_point, _mm_setzero_si128());
}

float f32_qdu8_quantize__avx512(int64_t n, const float *x, int8_t *q, int32_t *zero_point) {
    return quantize(n, x, q, zero_point, _mm_set1_epi8((char)0x80));
}

void f32_qdu8_quantize_values__avx512(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values(n, x, q, p, _mm_set1_epi8((char)0x80));
}
