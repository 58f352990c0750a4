/* f32_unary__avx512.c — RSQRT sixteen at a time as XNNPACK's AVX-512 kernel computes it (f32_vrsqrt
 * avx512f_rsqrt), which LiteRT's default Interpreter delegates RSQRT to on a CPU with AVX-512: the 14-bit
 * estimate vrsqrt14ps, then one Newton-Raphson step written as y - (x*y*y - 1) * (0.5*y), each operation rounded
 * on its own (no fused multiply-add). The reference's 1.0f / sqrtf(x) differs from it by an ulp on a third of
 * all inputs, which a layer norm passes on and a dynamic-range FULLY_CONNECTED after it, quantizing its input,
 * turns into whole quantization steps (bert_tiny_dynamic: 3.9e-3 of max |y|, 1.8e-7 with this). Intel specifies
 * vrsqrt14ps's results exactly (a reference implementation, not only an error bound), so these are LiteRT's bits
 * on any CPU with AVX-512. The estimate has no scalar counterpart: this path is within 2 ulp of the reference,
 * not equal to it. Outside [FLT_MIN, 2^125) it gives the reference's value, where XNNPACK's answers (NaN for 0
 * and subnormals, 1.5 times the estimate above 2^126) are no one's. The last 1-15 values go through a masked
 * load and store; LOGISTIC below; the other ops are the AVX2 build's. */
#include <immintrin.h>

#include "f32_unary.h"

static inline __m512 rsqrt16(__m512 x) {
    const __m512 y0 = _mm512_rsqrt14_ps(x);
    const __m512 e = _mm512_sub_ps(_mm512_mul_ps(x, _mm512_mul_ps(y0, y0)), _mm512_set1_ps(1.0f));
    const __m512 y = _mm512_sub_ps(y0, _mm512_mul_ps(e, _mm512_mul_ps(_mm512_set1_ps(0.5f), y0)));
    /* Outside [FLT_MIN, 2^125) the step fails: 0 * inf for 0 (and for a subnormal, which XNNPACK's flush-to-zero
     * makes 0), inf * 0 for +inf, and y0 * y0 below FLT_MIN for x above about 2^126, which XNNPACK flushes to 0
     * and so returns 1.5 * y0. There the reference's 1 / sqrtf(x) (NaN, +-inf, 0 or the value) stands. */
    const __mmask16 normal = _mm512_cmp_ps_mask(x, _mm512_set1_ps(FLT_MIN), _CMP_GE_OQ) &
                             _mm512_cmp_ps_mask(x, _mm512_set1_ps(0x1p125f), _CMP_LT_OQ);
    if (normal == 0xFFFF) return y;
    return _mm512_mask_div_ps(y, (__mmask16)~normal, _mm512_set1_ps(1.0f), _mm512_sqrt_ps(x));
}

/* LOGISTIC as XNNPACK's AVX-512 kernel computes it (f32_vsigmoid avx512f rr2_lut32_p2_perm2_scalef_div), which
 * LiteRT's default Interpreter delegates to on a CPU with AVX-512: the AVX2 kernel's rr1_p5 is an ulp off it on
 * some inputs. For z = -|x|, e^z = 2^(k/32) e^t: k = round(32 z / ln 2) (a magic bias of 1.5 * 2^18 leaves k in
 * the low mantissa bits, whose low 5 bits pick 2^((k mod 32) / 32) from a 32-entry table across two registers),
 * t = z - (k/32) ln 2 in two steps (ln 2's high and low parts), e^t ~ 1 + t + t^2 c2 scaled by the table entry
 * as l + (t l)(c1 + t c2), then vscalefps multiplies by 2^floor(k/32); f = e / (e + 1), 1 - f for positive x.
 * XNNPACK runs with flush-to-zero set, so a subnormal e^z (x below about -87) is 0 here too. */
static inline __m512 sigmoid16(__m512 x) {
    static const float table[32] = {
        0x1.000000p+0f, 0x1.059B0Ep+0f, 0x1.0B5586p+0f, 0x1.11301Ep+0f, 0x1.172B84p+0f, 0x1.1D4874p+0f,
        0x1.2387A6p+0f, 0x1.29E9E0p+0f, 0x1.306FE0p+0f, 0x1.371A74p+0f, 0x1.3DEA64p+0f, 0x1.44E086p+0f,
        0x1.4BFDAEp+0f, 0x1.5342B6p+0f, 0x1.5AB07Ep+0f, 0x1.6247ECp+0f, 0x1.6A09E6p+0f, 0x1.71F75Ep+0f,
        0x1.7A1148p+0f, 0x1.82589Ap+0f, 0x1.8ACE54p+0f, 0x1.93737Cp+0f, 0x1.9C4918p+0f, 0x1.A5503Cp+0f,
        0x1.AE89FAp+0f, 0x1.B7F770p+0f, 0x1.C199BEp+0f, 0x1.CB720Ep+0f, 0x1.D5818Ep+0f, 0x1.DFC974p+0f,
        0x1.EA4AFAp+0f, 0x1.F50766p+0f,
    };
    const __m512i sign = _mm512_set1_epi32((int32_t)0x80000000u);
    const __m512 magic_bias = _mm512_set1_ps(0x1.800000p18f), one = _mm512_set1_ps(1.0f);
    const __m512 z = _mm512_castsi512_ps(_mm512_or_epi32(_mm512_castps_si512(x), sign));
    __m512 n = _mm512_fmadd_ps(z, _mm512_set1_ps(0x1.715476p0f), magic_bias);
    const __m512 l =
        _mm512_permutex2var_ps(_mm512_loadu_ps(table), _mm512_castps_si512(n), _mm512_loadu_ps(table + 16));
    n = _mm512_sub_ps(n, magic_bias);
    __m512 t = _mm512_fmadd_ps(n, _mm512_set1_ps(-0x1.62E430p-1f), z);
    t = _mm512_fmadd_ps(n, _mm512_set1_ps(0x1.05C61p-29f), t);
    __m512 p = _mm512_fmadd_ps(t, _mm512_set1_ps(0x1.000000p-1f), _mm512_set1_ps(0x1.0000F6p-0f));
    t = _mm512_mul_ps(t, l);
    p = _mm512_fmadd_ps(t, p, l);
    __m512 e = _mm512_scalef_ps(p, n);
    const __m512 min_normal = _mm512_set1_ps(FLT_MIN);
    /* flush a subnormal (e is not negative; a NaN, XNNPACK's answer from |x| ~ 2^88, passes) */
    e = _mm512_mask_mov_ps(e, _mm512_cmp_ps_mask(e, min_normal, _CMP_LT_OQ), _mm512_setzero_ps());
    __m512 f = _mm512_div_ps(e, _mm512_add_ps(e, one));
    f = _mm512_mask_mov_ps(f, _mm512_cmp_ps_mask(f, min_normal, _CMP_LT_OQ), _mm512_setzero_ps());
    const __mmask16 positive = _mm512_cmpge_epi32_mask(_mm512_castps_si512(x), _mm512_setzero_si512()); /* sign 0 */
    return _mm512_mask_sub_ps(f, positive, one, f);
}

void f32_unary__avx512(rl_unary_op op, int64_t count, const float *x, float *y) {
    if (op != RL_UN_RSQRT && op != RL_UN_LOGISTIC) {
        f32_unary__avx2(op, count, x, y);
        return;
    }
    const int rsqrt = op == RL_UN_RSQRT;
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 v = _mm512_loadu_ps(x + i);
        _mm512_storeu_ps(y + i, rsqrt ? rsqrt16(v) : sigmoid16(v));
    }
    if (i < count) {
        const __mmask16 tail = (__mmask16)((1u << (count - i)) - 1u);
        const __m512 v = _mm512_maskz_loadu_ps(tail, x + i);
        _mm512_mask_storeu_ps(y + i, tail, rsqrt ? rsqrt16(v) : sigmoid16(v));
    }
}
