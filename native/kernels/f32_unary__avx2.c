/* f32_unary__avx2.c — LOGISTIC and TANH eight at a time: f32_sigmoid_as_xnnpack_avx2's and f32_tanh_as_xnnpack's
 * steps (f32_unary.h) in AVX2 lanes, each the same IEEE operation as the scalar one (the fmaf calls are vfmadd,
 * the flushes a compare and a blend, the sign's choice a blend on x's sign bit, the clamps vminps/vmaxps, which
 * pass x's NaN through as the scalar compares do), so the same bits, as XNNPACK's own kernels; the last 1-7
 * values through the scalar function. A scalar loop with -mfma took 2.99 of efficientword-net's 3.78 ms.
 * SIN and COS eight at a time (sincos8 below), within a few ulp of the reference's libm sinf and cosf, where a
 * libm call per value took 12 us of a decoder's 1.1 ms prefill (its rotary embedding's 2 x 2048 angles).
 * HARD_SWISH sixteen at a time (hard_swish8 below), the reference's bits. The other ops are the reference's. */
#include <immintrin.h>

#include "f32_unary.h"

/* copysign(0, v) where |v| < FLT_MIN, else v (f32_flush_subnormal); NaN kept. */
static inline __m256 flush_subnormal(__m256 v, __m256 sign) {
    const __m256 tiny = _mm256_cmp_ps(_mm256_andnot_ps(sign, v), _mm256_set1_ps(FLT_MIN), _CMP_LT_OQ);
    return _mm256_blendv_ps(v, _mm256_and_ps(v, sign), tiny);
}

static inline __m256 sigmoid8(__m256 x) {
    const __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    const __m256 magic_bias = _mm256_set1_ps(0x1.8000FEp23f);
    const __m256 z = _mm256_or_ps(x, sign); /* -|x| */
    __m256 n = _mm256_fmadd_ps(z, _mm256_set1_ps(0x1.715476p0f), magic_bias);
    const __m256 s = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(n), 23)); /* 2^n */
    n = _mm256_sub_ps(n, magic_bias);
    __m256 t = _mm256_fmadd_ps(n, _mm256_set1_ps(-0x1.62E430p-1f), z);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0x1.0F9F9Cp-7f), t, _mm256_set1_ps(0x1.573A1Ap-5f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.555A80p-3f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.FFFDC6p-2f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0x1.FFFFF6p-1f));
    t = flush_subnormal(_mm256_mul_ps(t, s), sign);
    const __m256 e = flush_subnormal(_mm256_fmadd_ps(t, p, s), sign); /* e^z */
    __m256 f = flush_subnormal(_mm256_div_ps(e, _mm256_add_ps(e, one)), sign);
    f = _mm256_andnot_ps(_mm256_cmp_ps(z, _mm256_set1_ps(-0x1.5D589Ep+6f), _CMP_LT_OQ), f);
    return _mm256_blendv_ps(_mm256_sub_ps(one, f), f, x); /* f where x's sign bit is set, else 1 - f */
}

static inline __m256 tanh8(__m256 x) {
    const __m256 max = _mm256_set1_ps(7.9807181358e+00f);
    const __m256 v = _mm256_max_ps(_mm256_sub_ps(_mm256_setzero_ps(), max), _mm256_min_ps(max, x));
    const __m256 v2 = _mm256_mul_ps(v, v);
    __m256 p = _mm256_fmadd_ps(v2, _mm256_set1_ps(1.4248920266e-08f), _mm256_set1_ps(2.1235626264e-05f));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(3.5330520477e-03f));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(1.3412411511e-01f));
    p = _mm256_fmadd_ps(v2, p, _mm256_set1_ps(1.0f));
    p = _mm256_mul_ps(v, p);
    __m256 q = _mm256_fmadd_ps(v2, _mm256_set1_ps(8.1365948290e-07f), _mm256_set1_ps(3.3472978976e-04f));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(2.6018999517e-02f));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(4.6745735407e-01f));
    q = _mm256_fmadd_ps(v2, q, _mm256_set1_ps(1.0f));
    return _mm256_div_ps(p, q);
}

/* HARD_SWISH as XNNPACK computes it: x * min(max(fma(x, 1/6, 0.5), 0), 1). The fused multiply-add is the
 * reference's double-precision product and sum rounded once (f32_unary_ref.c); vmaxps and vminps return their
 * second operand for a NaN or an equal pair, as the reference's `t > 0 ? t : 0` and `v < 1 ? v : 1` do (a NaN t
 * becomes 0, -0 becomes +0), so the same bits. The reference's two passes over a block, vectorised by gcc for
 * the baseline ISA (double lanes: a conversion each way), cost 10 instructions a value: MobileNetV3-small's 21
 * HARD_SWISHes were 6.1M of its 28M per invoke, against 0.8M in XNNPACK's vhswish. */
static inline __m256 hard_swish8(__m256 x) {
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(1.0f / 6.0f), _mm256_set1_ps(0.5f));
    t = _mm256_min_ps(_mm256_max_ps(t, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(x, t);
}

/* sin x (cos = 0) or cos x (cos = 1) for |x| <= SINCOS_MAX: the octant count j = |x| * 4/pi truncated and
 * rounded up to even, r = |x| - j * pi/4 with pi/4 in three parts (Cephes' DP1..DP3: the first two products
 * are exact for j below 2^14, the fused multiply-adds round once each), so r is in [-pi/4, pi/4]; then the sine
 * or cosine polynomial of r (Cephes' sinf and cosf coefficients, minimax on that interval) by the quadrant
 * q = j / 2 (plus one for the cosine), negated in quadrants 2 and 3 and, for the sine, where x is negative. */
#define SINCOS_MAX 8192.0f

static inline __m256 sincos8(__m256 x, int cos) {
    const __m256 sign_mask = _mm256_set1_ps(-0.0f);
    const __m256 ax = _mm256_andnot_ps(sign_mask, x);
    __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(ax, _mm256_set1_ps(1.27323954473516f))); /* 4 / pi */
    j = _mm256_and_si256(_mm256_add_epi32(j, _mm256_set1_epi32(1)), _mm256_set1_epi32(~1));
    const __m256 fj = _mm256_cvtepi32_ps(j);
    __m256 r = _mm256_fnmadd_ps(fj, _mm256_set1_ps(0.78515625f), ax);
    r = _mm256_fnmadd_ps(fj, _mm256_set1_ps(2.4187564849853515625e-4f), r);
    r = _mm256_fnmadd_ps(fj, _mm256_set1_ps(3.77489497744594108e-8f), r);
    const __m256i q = _mm256_add_epi32(_mm256_srli_epi32(j, 1), _mm256_set1_epi32(cos));
    const __m256 z = _mm256_mul_ps(r, r);
    __m256 ps = _mm256_fmadd_ps(z, _mm256_set1_ps(-1.9515295891e-4f), _mm256_set1_ps(8.3321608736e-3f));
    ps = _mm256_fmadd_ps(z, ps, _mm256_set1_ps(-1.6666654611e-1f));
    ps = _mm256_fmadd_ps(_mm256_mul_ps(z, r), ps, r);
    __m256 pc = _mm256_fmadd_ps(z, _mm256_set1_ps(2.443315711809948e-5f), _mm256_set1_ps(-1.388731625493765e-3f));
    pc = _mm256_fmadd_ps(z, pc, _mm256_set1_ps(4.166664568298827e-2f));
    pc = _mm256_fmadd_ps(_mm256_mul_ps(z, z), pc, _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), _mm256_set1_ps(1.0f)));
    /* The cosine polynomial in odd quadrants: q's bit 0 moved to the sign bit makes blendv's mask. */
    const __m256 odd = _mm256_castsi256_ps(_mm256_slli_epi32(q, 31));
    __m256 v = _mm256_blendv_ps(ps, pc, odd);
    __m256 negate = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_srli_epi32(q, 1), 31)); /* quadrants 2, 3 */
    if (!cos) negate = _mm256_xor_ps(negate, _mm256_and_ps(x, sign_mask));
    return _mm256_xor_ps(v, _mm256_and_ps(negate, sign_mask));
}

/* SIN or COS of count values: eight at a time where all eight are within SINCOS_MAX (NaN is not), libm for the
 * others and the last 1-7. */
static void sincos(int cos, int64_t count, const float *x, float *y) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 inside = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v), _mm256_set1_ps(SINCOS_MAX),
                                            _CMP_LE_OQ);
        if (_mm256_movemask_ps(inside) == 0xFF) {
            _mm256_storeu_ps(y + i, sincos8(v, cos));
        } else {
            for (int64_t k = i; k < i + 8; ++k) y[k] = cos ? cosf(x[k]) : sinf(x[k]);
        }
    }
    for (; i < count; ++i) y[i] = cos ? cosf(x[i]) : sinf(x[i]);
}

void f32_unary__avx2(rl_unary_op op, int64_t count, const float *x, float *y) {
    int64_t i = 0;
    if (op == RL_UN_LOGISTIC) {
        for (; i + 8 <= count; i += 8) _mm256_storeu_ps(y + i, sigmoid8(_mm256_loadu_ps(x + i)));
        for (; i < count; ++i) y[i] = f32_sigmoid_as_xnnpack_avx2(x[i]);
    } else if (op == RL_UN_TANH) {
        for (; i + 8 <= count; i += 8) _mm256_storeu_ps(y + i, tanh8(_mm256_loadu_ps(x + i)));
        for (; i < count; ++i) y[i] = f32_tanh_as_xnnpack(x[i]);
    } else if (op == RL_UN_HARD_SWISH) {
        for (; i + 16 <= count; i += 16) {
            _mm256_storeu_ps(y + i, hard_swish8(_mm256_loadu_ps(x + i)));
            _mm256_storeu_ps(y + i + 8, hard_swish8(_mm256_loadu_ps(x + i + 8)));
        }
        for (; i + 8 <= count; i += 8) _mm256_storeu_ps(y + i, hard_swish8(_mm256_loadu_ps(x + i)));
        f32_unary_ref(op, count - i, x + i, y + i);
    } else if (op == RL_UN_SIN || op == RL_UN_COS) {
        sincos(op == RL_UN_COS, count, x, y);
    } else {
        f32_unary_ref(op, count, x, y);
    }
}
