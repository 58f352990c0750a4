/* f32_maxpool__neon.c — f32_maxpool__scalar, 8 channels a step, then 4, then the last 1-3 one at a time
 * (aarch64 and armv7). vmaxq_f32 would let a NaN tap win, so each step is the scalar kernel's own select,
 * x > m ? x : m, and the results are its bits. */
#include <arm_neon.h>
#include <float.h>

#include "pool.h"

static float32x4_t max4(float32x4_t x, float32x4_t m) { return vbslq_f32(vcgtq_f32(x, m), x, m); }

/* The scalar kernel's clamp: v < min ? min : v, then v > max ? max : v. */
static float32x4_t clamp4(float32x4_t v, float32x4_t lo, float32x4_t hi) {
    v = vbslq_f32(vcltq_f32(v, lo), lo, v);
    return vbslq_f32(vcgtq_f32(v, hi), hi, v);
}

void f32_maxpool__neon(size_t channels, size_t taps, const float *const *input, float *output, float min,
                       float max) {
    const float32x4_t lo = vdupq_n_f32(min), hi = vdupq_n_f32(max), lowest = vdupq_n_f32(-FLT_MAX);
    size_t c = 0;
    for (; c + 8 <= channels; c += 8) {
        float32x4_t m0 = lowest, m1 = lowest;
        for (size_t t = 0; t < taps; ++t) {
            m0 = max4(vld1q_f32(input[t] + c), m0);
            m1 = max4(vld1q_f32(input[t] + c + 4), m1);
        }
        vst1q_f32(output + c, clamp4(m0, lo, hi));
        vst1q_f32(output + c + 4, clamp4(m1, lo, hi));
    }
    for (; c + 4 <= channels; c += 4) {
        float32x4_t m = lowest;
        for (size_t t = 0; t < taps; ++t) m = max4(vld1q_f32(input[t] + c), m);
        vst1q_f32(output + c, clamp4(m, lo, hi));
    }
    for (; c < channels; ++c) {
        float m = -FLT_MAX;
        for (size_t t = 0; t < taps; ++t) m = input[t][c] > m ? input[t][c] : m;
        m = m < min ? min : m;
        output[c] = m > max ? max : m;
    }
}
