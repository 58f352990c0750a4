/* f32_vbinary__neon.c — the float32 element-wise binary micro-kernels (f32_vbinary__scalar.c) 8 elements a
 * step, then 4, then the last 1-3 with the scalar arithmetic (aarch64 and armv7). vmaxq_f32 / vminq_f32 would
 * let a NaN win and order the zeros, so MAXIMUM, MINIMUM, PRELU and the clamp are the scalar kernel's own
 * compares and selects; no fused multiply-add; DIV is vdivq_f32 on aarch64 and, as armv7's NEON has no divide
 * (only a reciprocal estimate), four VFP divides there. Without an activation (bounds -inf and +inf, every
 * ADD / MUL / SUB / SQUARED_DIFFERENCE of a transformer) the clamp is skipped: it returns every value, NaN
 * included, unchanged, and its compares and selects were half the loop's instructions. */
#include <math.h>

#include "f32_exp__neon.h"
#include "f32_vbinary_scalar.h"

#define INLINE static inline __attribute__((always_inline))

INLINE float32x4_t divide4(float32x4_t x, float32x4_t y) {
#if defined(__aarch64__)
    return vdivq_f32(x, y);
#else
    float xs[4], ys[4];
    vst1q_f32(xs, x);
    vst1q_f32(ys, y);
    for (int i = 0; i < 4; ++i) xs[i] = xs[i] / ys[i];
    return vld1q_f32(xs);
#endif
}

INLINE float32x4_t apply4(rl_binary_op op, float32x4_t x, float32x4_t y) {
    switch (op) {
    case RL_BIN_ADD: return vaddq_f32(x, y);
    case RL_BIN_SUB: return vsubq_f32(x, y);
    case RL_BIN_MUL: return vmulq_f32(x, y);
    case RL_BIN_DIV: return divide4(x, y);
    case RL_BIN_SQUARED_DIFFERENCE: { const float32x4_t d = vsubq_f32(x, y); return vmulq_f32(d, d); }
    case RL_BIN_MAXIMUM: return vbslq_f32(vcltq_f32(x, y), y, x);
    case RL_BIN_MINIMUM: return vbslq_f32(vcltq_f32(y, x), y, x);
    case RL_BIN_PRELU: return vbslq_f32(vcgeq_f32(x, vdupq_n_f32(0.0f)), x, vmulq_f32(x, y));
    }
    return x;
}

typedef struct {
    float32x4_t lo, hi;
    float min, max;
} bounds;

INLINE float32x4_t step4(rl_binary_op op, int reversed, int clamped, float32x4_t x, float32x4_t y, const bounds *b) {
    float32x4_t v = reversed ? apply4(op, y, x) : apply4(op, x, y);
    if (!clamped) return v;
    v = vbslq_f32(vcltq_f32(v, b->lo), b->lo, v);
    return vbslq_f32(vcgtq_f32(v, b->hi), b->hi, v);
}

/* n outputs of x against y: n values of y (y_vector), or the one value y[0]; clamped 0 where the bounds are
 * -inf and +inf. Each step loads before it stores, so out may be x or y. */
INLINE void run(rl_binary_op op, int reversed, int y_vector, int clamped, size_t n, const float *x, const float *y,
                float *out, const bounds *b) {
    const float32x4_t yv = vdupq_n_f32(y[0]);
    for (; n >= 8; n -= 8) {
        const float32x4x2_t xs = rl_neon_load8(x);
        float32x4x2_t ys = {{yv, yv}};
        if (y_vector) {
            ys = rl_neon_load8(y);
            y += 8;
        }
        x += 8;
        rl_neon_store8(out, step4(op, reversed, clamped, xs.val[0], ys.val[0], b),
               step4(op, reversed, clamped, xs.val[1], ys.val[1], b));
        out += 8;
    }
    if (n >= 4) {
        vst1q_f32(out, step4(op, reversed, clamped, vld1q_f32(x), y_vector ? vld1q_f32(y) : yv, b));
        x += 4, out += 4, n -= 4;
        if (y_vector) y += 4;
    }
    for (size_t i = 0; i < n; ++i) {
        const float xi = x[i], yi = y[y_vector ? i : 0];
        const float v = reversed ? rl_f32_binary_apply(op, yi, xi) : rl_f32_binary_apply(op, xi, yi);
        out[i] = clamped ? rl_f32_binary_clamp(v, b->min, b->max) : v;
    }
}

void f32_vbinary__neon(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                       const rl_f32_minmax_params *p) {
    const bounds k = {vdupq_n_f32(p->min), vdupq_n_f32(p->max), p->min, p->max};
    const int clamped = !(p->min == -INFINITY && p->max == INFINITY);
    if (n == 0) return; /* run reads y[0] */
#define SAME_SHAPE(OP) clamped ? run(OP, 0, 1, 1, n, a, b, out, &k) : run(OP, 0, 1, 0, n, a, b, out, &k)
    RL_F32_BINARY_DISPATCH(op, SAME_SHAPE)
#undef SAME_SHAPE
}

void f32_vbinaryc__neon(rl_binary_op op, int reversed, size_t n, const float *x, const float *v, float *out,
                        const rl_f32_minmax_params *p) {
    const bounds k = {vdupq_n_f32(p->min), vdupq_n_f32(p->max), p->min, p->max};
    const int clamped = !(p->min == -INFINITY && p->max == INFINITY);
    const float value = v[0]; /* a copy the stores cannot alias */
#define ONE_VALUE(OP)                                                                                            \
    clamped ? (reversed ? run(OP, 1, 0, 1, n, x, &value, out, &k) : run(OP, 0, 0, 1, n, x, &value, out, &k))     \
            : (reversed ? run(OP, 1, 0, 0, n, x, &value, out, &k) : run(OP, 0, 0, 0, n, x, &value, out, &k))
    RL_F32_BINARY_DISPATCH(op, ONE_VALUE)
#undef ONE_VALUE
}

void f32_vbinary_rows__neon(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                            const float *v, float *out, const rl_f32_minmax_params *p) {
    const bounds k = {vdupq_n_f32(p->min), vdupq_n_f32(p->max), p->min, p->max};
    const int clamped = !(p->min == -INFINITY && p->max == INFINITY);
    if (channels == 0) return;
#define ROWS(OP)                                                                                                 \
    for (size_t r = 0; r < rows; ++r)                                                                            \
        clamped ? (reversed ? run(OP, 1, 1, 1, channels, x + r * channels, v, out + r * channels, &k)            \
                            : run(OP, 0, 1, 1, channels, x + r * channels, v, out + r * channels, &k))           \
                : (reversed ? run(OP, 1, 1, 0, channels, x + r * channels, v, out + r * channels, &k)            \
                            : run(OP, 0, 1, 0, channels, x + r * channels, v, out + r * channels, &k))
    RL_F32_BINARY_DISPATCH(op, ROWS)
#undef ROWS
}
