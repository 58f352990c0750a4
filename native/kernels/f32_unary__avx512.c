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
 * load and store; the other ops are the AVX2 build's. */
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

void f32_unary__avx512(rl_unary_op op, int64_t count, const float *x, float *y) {
    if (op != RL_UN_RSQRT) {
        f32_unary__avx2(op, count, x, y);
        return;
    }
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) _mm512_storeu_ps(y + i, rsqrt16(_mm512_loadu_ps(x + i)));
    if (i < count) {
        const __mmask16 tail = (__mmask16)((1u << (count - i)) - 1u);
        _mm512_mask_storeu_ps(y + i, tail, rsqrt16(_mm512_maskz_loadu_ps(tail, x + i)));
    }
}
