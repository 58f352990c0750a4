/* f32_rmax__neon.c — a row's maximum (f32_vexp.h), NEON, 16 values a step in four accumulators started at
 * x[0]. A compare and select rather than vmaxq, which would return a NaN: the scalar kernel's
 * x > max ? x : max, lane by lane. */
#include <arm_neon.h>

#include "f32_vexp.h"

static inline float32x4_t greater(float32x4_t x, float32x4_t max) { return vbslq_f32(vcgtq_f32(x, max), x, max); }

float f32_rmax__neon(size_t n, const float *x) {
    float32x4_t m0 = vdupq_n_f32(x[0]), m1 = m0, m2 = m0, m3 = m0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        m0 = greater(vld1q_f32(x + i), m0);
        m1 = greater(vld1q_f32(x + i + 4), m1);
        m2 = greater(vld1q_f32(x + i + 8), m2);
        m3 = greater(vld1q_f32(x + i + 12), m3);
    }
    for (; i + 4 <= n; i += 4) m0 = greater(vld1q_f32(x + i), m0);
    m0 = greater(m1, m0);
    m2 = greater(m3, m2);
    m0 = greater(m2, m0);
    float lanes[4];
    vst1q_f32(lanes, m0);
    float max = lanes[0];
    for (size_t l = 1; l < 4; ++l) max = lanes[l] > max ? lanes[l] : max;
    for (; i < n; ++i) max = x[i] > max ? x[i] : max;
    return max;
}
