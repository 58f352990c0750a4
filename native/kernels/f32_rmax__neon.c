/* f32_rmax__neon.c — a row's maximum (f32_vexp.h), NEON, 16 values a step in four accumulators started at
 * x[0], then 4 a step, then the last n % 4 one at a time.
 *
 * aarch64: fmaxnm, one instruction per vector (Arm has no single instruction for the scalar kernel's
 * x > max ? x : max, which cost a compare and a select): it returns the number when the other value is a quiet
 * NaN, so a NaN after the first value is skipped as the scalar kernel skips it, and a NaN first (which the
 * accumulators would then skip too) is returned up front. Where the maximum is a zero its sign may differ from
 * the scalar kernel's (fmaxnm takes +0 over -0, the scalar kernel the first of the two): softmax reads the
 * maximum only through x - max, whose value is then the same for every x. armv7 has no fmaxnm: the compare and
 * select, the scalar kernel's bits. */
#include <arm_neon.h>

#include "f32_vexp.h"

#if defined(__aarch64__)
#define GREATER(x, max) vmaxnmq_f32(x, max)
#else
#define GREATER(x, max) vbslq_f32(vcgtq_f32(x, max), x, max)
#endif

float f32_rmax__neon(size_t n, const float *x) {
    if (x[0] != x[0]) return x[0];
    float32x4_t m0 = vdupq_n_f32(x[0]), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
#if defined(__aarch64__)
        const float32x4x4_t v = vld1q_f32_x4(x + i); /* one ld1 of four registers */
#else
        const float32x4x4_t v = {{vld1q_f32(x + i), vld1q_f32(x + i + 4), vld1q_f32(x + i + 8), vld1q_f32(x + i + 12)}};
#endif
        m0 = GREATER(v.val[0], m0);
        m1 = GREATER(v.val[1], m1);
        m2 = GREATER(v.val[2], m2);
        m3 = GREATER(v.val[3], m3);
    }
    for (; i + 4 <= n; i += 4) m0 = GREATER(vld1q_f32(x + i), m0);
    m0 = GREATER(m1, m0);
    m2 = GREATER(m3, m2);
    m0 = GREATER(m2, m0);
#if defined(__aarch64__)
    float max = vmaxnmvq_f32(m0);
#else
    float lanes[4];
    vst1q_f32(lanes, m0);
    float max = lanes[0];
    for (size_t l = 1; l < 4; ++l) max = lanes[l] > max ? lanes[l] : max;
#endif
    for (; i < n; ++i) max = x[i] > max ? x[i] : max;
    return max;
}
