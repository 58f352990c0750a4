/* f32_vbinary__avx2.c — the float32 element-wise binary micro-kernels (f32_vbinary__scalar.c) 16 elements a
 * step, then 8, then the last 1-7 through masked loads (never a read or write past n). Each step is
 * the scalar arithmetic's own instruction: MAXIMUM is vmaxps(y, x), which is y > x ? y : x, the reference's
 * x < y ? y : x, NaN and signed zeros included (likewise MINIMUM and the clamp); PRELU a compare and blend;
 * DIV vdivps, no reciprocal estimate; no FMA (the products and differences round as the scalar ones). */
#include <immintrin.h>

#include "f32_vbinary_scalar.h"

#define INLINE static inline __attribute__((always_inline))

INLINE __m256 apply8(rl_binary_op op, __m256 x, __m256 y) {
    switch (op) {
    case RL_BIN_ADD: return _mm256_add_ps(x, y);
    case RL_BIN_SUB: return _mm256_sub_ps(x, y);
    case RL_BIN_MUL: return _mm256_mul_ps(x, y);
    case RL_BIN_DIV: return _mm256_div_ps(x, y);
    case RL_BIN_SQUARED_DIFFERENCE: { const __m256 d = _mm256_sub_ps(x, y); return _mm256_mul_ps(d, d); }
    case RL_BIN_MAXIMUM: return _mm256_max_ps(y, x);
    case RL_BIN_MINIMUM: return _mm256_min_ps(y, x);
    case RL_BIN_PRELU:
        return _mm256_blendv_ps(_mm256_mul_ps(x, y), x, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
    }
    return x;
}

typedef struct {
    __m256 lo, hi;
} bounds;

/* x op y (y op x when reversed), then v < lo ? lo : v (vmaxps(lo, v)) and v > hi ? hi : v (vminps(hi, v)). */
INLINE __m256 step8(rl_binary_op op, int reversed, __m256 x, __m256 y, bounds b) {
    const __m256 v = reversed ? apply8(op, y, x) : apply8(op, x, y);
    return _mm256_min_ps(b.hi, _mm256_max_ps(b.lo, v));
}

/* Lanes [0, count) of a mask for the last 1-7 elements. */
static __m256i tail_mask(size_t count) {
    static const int32_t ones_then_zeros[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(ones_then_zeros + 8 - count));
}

/* n outputs of x against y: n values of y (y_vector), or the one value in yv. */
INLINE void run(rl_binary_op op, int reversed, int y_vector, size_t n, const float *x, const float *y, __m256 yv,
                float *out, bounds b) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256 y0 = y_vector ? _mm256_loadu_ps(y + i) : yv, y1 = y_vector ? _mm256_loadu_ps(y + i + 8) : yv;
        const __m256 v0 = step8(op, reversed, _mm256_loadu_ps(x + i), y0, b);
        const __m256 v1 = step8(op, reversed, _mm256_loadu_ps(x + i + 8), y1, b);
        _mm256_storeu_ps(out + i, v0);
        _mm256_storeu_ps(out + i + 8, v1);
    }
    if (i + 8 <= n) {
        _mm256_storeu_ps(out + i, step8(op, reversed, _mm256_loadu_ps(x + i), y_vector ? _mm256_loadu_ps(y + i) : yv,
                                        b));
        i += 8;
    }
    if (i < n) { /* stored through a buffer: Zen 3 runs vmaskmovps stores as microcode, slower than the copy */
        const __m256i mask = tail_mask(n - i);
        const __m256 yt = y_vector ? _mm256_maskload_ps(y + i, mask) : yv;
        float last[8];
        _mm256_storeu_ps(last, step8(op, reversed, _mm256_maskload_ps(x + i, mask), yt, b));
        for (size_t j = 0; i + j < n; ++j) out[i + j] = last[j];
    }
}

void f32_vbinary__avx2(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                       const rl_f32_minmax_params *p) {
    const bounds k = {_mm256_set1_ps(p->min), _mm256_set1_ps(p->max)};
    const __m256 unused = _mm256_setzero_ps();
#define SAME_SHAPE(OP) run(OP, 0, 1, n, a, b, unused, out, k)
    RL_F32_BINARY_DISPATCH(op, SAME_SHAPE)
#undef SAME_SHAPE
}

void f32_vbinaryc__avx2(rl_binary_op op, int reversed, size_t n, const float *x, const float *v, float *out,
                        const rl_f32_minmax_params *p) {
    const bounds k = {_mm256_set1_ps(p->min), _mm256_set1_ps(p->max)};
    const __m256 value = _mm256_set1_ps(v[0]);
#define ONE_VALUE(OP) reversed ? run(OP, 1, 0, n, x, v, value, out, k) : run(OP, 0, 0, n, x, v, value, out, k)
    RL_F32_BINARY_DISPATCH(op, ONE_VALUE)
#undef ONE_VALUE
}

/* Each row a call of run: rows of 8 channels (MediaPipe's PRELUs) are one full step each. */
void f32_vbinary_rows__avx2(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                            const float *v, float *out, const rl_f32_minmax_params *p) {
    const bounds k = {_mm256_set1_ps(p->min), _mm256_set1_ps(p->max)};
    const __m256 unused = _mm256_setzero_ps();
#define ROWS(OP)                                                                                                 \
    for (size_t r = 0; r < rows; ++r)                                                                            \
        reversed ? run(OP, 1, 1, channels, x + r * channels, v, unused, out + r * channels, k)                   \
                 : run(OP, 0, 1, channels, x + r * channels, v, unused, out + r * channels, k)
    RL_F32_BINARY_DISPATCH(op, ROWS)
#undef ROWS
}
