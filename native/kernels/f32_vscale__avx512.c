/* f32_vscale__avx512.c — y = x * s (f32_vexp.h), AVX-512F: 64 values a step, then 16, then a last n % 16 through
 * a zero-masked load and a masked store, which touch nothing past n. */
#include <immintrin.h>

#include "f32_vexp.h"

void f32_vscale__avx512(size_t n, const float *x, float s, float *y) {
    const __m512 vs = _mm512_set1_ps(s);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
        const __m512 c = _mm512_loadu_ps(x + i + 32), d = _mm512_loadu_ps(x + i + 48);
        _mm512_storeu_ps(y + i, _mm512_mul_ps(a, vs));
        _mm512_storeu_ps(y + i + 16, _mm512_mul_ps(b, vs));
        _mm512_storeu_ps(y + i + 32, _mm512_mul_ps(c, vs));
        _mm512_storeu_ps(y + i + 48, _mm512_mul_ps(d, vs));
    }
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), vs));
    if (i < n) {
        const __mmask16 mask = (__mmask16)((1u << (n - i)) - 1u);
        _mm512_mask_storeu_ps(y + i, mask, _mm512_mul_ps(_mm512_maskz_loadu_ps(mask, x + i), vs));
    }
}
