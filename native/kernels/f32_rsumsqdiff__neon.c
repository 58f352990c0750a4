/* f32_rsumsqdiff__neon.c — a row's sum of (x - c)^2 (f32_rsum.h) in f32_rsum__neon's 8-lane pairs and order, each
 * term vsub then vmul (never vfma / vmla, which would not round the square before the addition); the last 1-7
 * squares go through a block whose other lanes hold +0. The scalar kernel's bits (armv7's
 * NEON flushes subnormals to zero, which VFP does not). */
#include <arm_neon.h>

#include "f32_rsum.h"

typedef struct {
    float32x4_t lo, hi;
} lanes8;

static inline float32x4_t square_of_difference(float32x4_t x, float32x4_t c) {
    const float32x4_t d = vsubq_f32(x, c);
    return vmulq_f32(d, d);
}

static inline lanes8 add8(lanes8 a, const float *x, float32x4_t c) {
    a.lo = vaddq_f32(a.lo, square_of_difference(vld1q_f32(x), c));
    a.hi = vaddq_f32(a.hi, square_of_difference(vld1q_f32(x + 4), c));
    return a;
}

static inline lanes8 add8_terms(lanes8 a, const float *terms) {
    a.lo = vaddq_f32(a.lo, vld1q_f32(terms));
    a.hi = vaddq_f32(a.hi, vld1q_f32(terms + 4));
    return a;
}

static inline lanes8 sum8(lanes8 a, lanes8 b) {
    a.lo = vaddq_f32(a.lo, b.lo);
    a.hi = vaddq_f32(a.hi, b.hi);
    return a;
}

float f32_rsumsqdiff__neon(size_t n, const float *x, float c) {
    const float32x4_t vc = vdupq_n_f32(c);
    const lanes8 zero = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
    lanes8 acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = add8(acc0, x + i, vc);
        acc1 = add8(acc1, x + i + 8, vc);
        acc2 = add8(acc2, x + i + 16, vc);
        acc3 = add8(acc3, x + i + 24, vc);
    }
    if (i + 8 <= n) acc0 = add8(acc0, x + i, vc), i += 8;
    if (i + 8 <= n) acc1 = add8(acc1, x + i, vc), i += 8;
    if (i + 8 <= n) acc2 = add8(acc2, x + i, vc), i += 8;
    lanes8 lanes = sum8(sum8(acc0, acc2), sum8(acc1, acc3));
    if (i < n) { /* the last 1-7 squares, the other lanes +0 (whatever c is: an infinite c squares to NaN) */
        float terms[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        for (size_t l = 0; i + l < n; ++l) {
            const float d = x[i + l] - c;
            terms[l] = d * d;
        }
        lanes = add8_terms(lanes, terms);
    }
    float half[4];
    vst1q_f32(half, vaddq_f32(lanes.lo, lanes.hi));
    return (half[0] + half[2]) + (half[1] + half[3]);
}
