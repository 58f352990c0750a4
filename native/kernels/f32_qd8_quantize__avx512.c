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
    /* The 16 lanes to one by halving (a row of 128 is 2 steps of the loop: the store and scalar loop this replaces
     * cost as much as they did). */
    __m512 vlo = _mm512_min_ps(_mm512_min_ps(vlo0, vlo1), _mm512_min_ps(vlo2, vlo3));
    __m512 vhi = _mm512_max_ps(_mm512_max_ps(vhi0, vhi1), _mm512_max_ps(vhi2, vhi3));
    vlo = _mm512_min_ps(vlo, _mm512_shuffle_f32x4(vlo, vlo, _MM_SHUFFLE(1, 0, 3, 2)));
    vhi = _mm512_max_ps(vhi, _mm512_shuffle_f32x4(vhi, vhi, _MM_SHUFFLE(1, 0, 3, 2)));
    vlo = _mm512_min_ps(vlo, _mm512_shuffle_f32x4(vlo, vlo, _MM_SHUFFLE(2, 3, 0, 1)));
    vhi = _mm512_max_ps(vhi, _mm512_shuffle_f32x4(vhi, vhi, _MM_SHUFFLE(2, 3, 0, 1)));
    vlo = _mm512_min_ps(vlo, _mm512_shuffle_ps(vlo, vlo, _MM_SHUFFLE(1, 0, 3, 2)));
    vhi = _mm512_max_ps(vhi, _mm512_shuffle_ps(vhi, vhi, _MM_SHUFFLE(1, 0, 3, 2)));
    vlo = _mm512_min_ps(vlo, _mm512_shuffle_ps(vlo, vlo, _MM_SHUFFLE(2, 3, 0, 1)));
    vhi = _mm512_max_ps(vhi, _mm512_shuffle_ps(vhi, vhi, _MM_SHUFFLE(2, 3, 0, 1)));
    float a = _mm_cvtss_f32(_mm512_castps512_ps128(vlo)), b = _mm_cvtss_f32(_mm512_castps512_ps128(vhi));
    for (; i < n; ++i) a = x[i] < a ? x[i] : a, b = x[i] > b ? x[i] : b;
    *lo = a, *hi = b;
}

/* The reference's v > below ? v : below, then v < above ? v : above, rounded to nearest even (vcvtps2dq in the
 * default rounding mode), plus the zero point: within [-128, 127], so the saturating narrowing is exact. */
static inline __m512i qd8_lanes(__m512 x, __m512 vscale, __m512 vbelow, __m512 vabove, __m512i vzp) {
    const __m512 v = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, vscale), vbelow), vabove);
    return _mm512_add_epi32(_mm512_cvtps_epi32(v), vzp);
}

/* u8: the qdu8 form, every byte plus 128. 64 values a step are packed to bytes two steps at a time (vpackssdw, then
 * vpacksswb, or vpackuswb for u8 with the 128 added to the zero point: the sums lie in [0, 255]) and put in order
 * by one vpermd, 4 shuffles per 64 values where vpmovsdb is 2 per 16 (and the u8 flip, a vpxor per 16, is gone):
 * on bert_tiny_dynamic's rows of 128 the conversion was most of a row's quantization. The values are clamped to the
 * int8 range first, so every pack is exact. Then 16 at a time, and the tail under a mask, flipped for u8. */
static inline void qd8_values(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p, int u8) {
    const int32_t zp = p->zero_point;
    const __m512 vscale = _mm512_set1_ps(p->multiplier);
    const __m512 vbelow = _mm512_set1_ps((float)(-128 - zp)), vabove = _mm512_set1_ps((float)(127 - zp));
    const __m512i vzp = _mm512_set1_epi32(zp), vzp_packed = _mm512_set1_epi32(u8 ? zp + 128 : zp);
    const __m128i flip = _mm_set1_epi8((char)(u8 ? 0x80 : 0));
    /* After the two packs, 128-bit lane l holds 4 values of each of the 4 vectors (dword 4 l + j: vector j's
     * values 4 l .. 4 l + 3); dword d of the result is vector d / 4's values 4 (d % 4) ..: dword 4 (d % 4) + d / 4. */
    const __m512i vorder = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i v0 = qd8_lanes(_mm512_loadu_ps(x + i), vscale, vbelow, vabove, vzp_packed);
        const __m512i v1 = qd8_lanes(_mm512_loadu_ps(x + i + 16), vscale, vbelow, vabove, vzp_packed);
        const __m512i v2 = qd8_lanes(_mm512_loadu_ps(x + i + 32), vscale, vbelow, vabove, vzp_packed);
        const __m512i v3 = qd8_lanes(_mm512_loadu_ps(x + i + 48), vscale, vbelow, vabove, vzp_packed);
        const __m512i v01 = _mm512_packs_epi32(v0, v1), v23 = _mm512_packs_epi32(v2, v3);
        const __m512i bytes = u8 ? _mm512_packus_epi16(v01, v23) : _mm512_packs_epi16(v01, v23);
        _mm512_storeu_si512((void *)(q + i), _mm512_permutexvar_epi32(vorder, bytes));
    }
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

/* The two byte forms as the values functions RL_F32_QS8_QUANTIZE_ONE_STEP takes, u8 a constant in each. */
static inline void qd8_values_s8(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values(n, x, q, p, 0);
}

static inline void qd8_values_u8(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values(n, x, q, p, 1);
}

void f32_rminmax__avx512(int64_t n, const float *x, float *lo, float *hi) { rminmax(n, x, lo, hi); }

void f32_qd8_quantize_values__avx512(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values_s8(n, x, q, p);
}

void f32_qdu8_quantize_values__avx512(int64_t n, const float *x, int8_t *q, const rl_f32_qs8_quantization *p) {
    qd8_values_u8(n, x, q, p);
}

RL_F32_QS8_QUANTIZE_ONE_STEP(f32_qd8_quantize__avx512, rminmax, rl_qd8_quantization_of, qd8_values_s8)

RL_F32_QS8_QUANTIZE_ONE_STEP(f32_qdu8_quantize__avx512, rminmax, rl_qd8_quantization_of, qd8_values_u8)
