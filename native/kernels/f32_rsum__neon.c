/* f32_rsum__neon.c — a row's sum in XNNPACK's AVX order (f32_rsum.h), the scalar kernel's 8-lane sums as pairs
 * of NEON registers (lanes 0-3 and 4-7): the same additions in the same order, so the same bits (armv7's NEON
 * flushes subnormal sums to zero, which VFP does not). */
#include <arm_neon.h>

#include "f32_exp__neon.h"
#include "f32_rsum.h"

typedef struct {
    float32x4_t lo, hi;
} lanes8;

static inline lanes8 add8(lanes8 a, const float *x) {
    a.lo = vaddq_f32(a.lo, vld1q_f32(x));
    a.hi = vaddq_f32(a.hi, vld1q_f32(x + 4));
    return a;
}

static inline lanes8 sum8(lanes8 a, lanes8 b) {
    a.lo = vaddq_f32(a.lo, b.lo);
    a.hi = vaddq_f32(a.hi, b.hi);
    return a;
}

float f32_rsum__neon(size_t n, const float *x) {
    const lanes8 zero = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
    lanes8 acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        acc0 = add8(acc0, x + i);
        acc1 = add8(acc1, x + i + 8);
        acc2 = add8(acc2, x + i + 16);
        acc3 = add8(acc3, x + i + 24);
    }
    if (i + 8 <= n) acc0 = add8(acc0, x + i), i += 8;
    if (i + 8 <= n) acc1 = add8(acc1, x + i), i += 8;
    if (i + 8 <= n) acc2 = add8(acc2, x + i), i += 8;
    lanes8 lanes = sum8(sum8(acc0, acc2), sum8(acc1, acc3));
    if (i < n) {
        float block[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
        for (size_t l = 0; i + l < n; ++l) block[l] = x[i + l];
        lanes = add8(lanes, block);
    }
    float half[4];
    vst1q_f32(half, vaddq_f32(lanes.lo, lanes.hi));
    return (half[0] + half[2]) + (half[1] + half[3]);
}
