/* f32_avgpool__neon.c — f32_avgpool__scalar, 16 channels a step (four sums in flight hide the adds' latency),
 * then 4, then the last 1-3 one at a time (aarch64 and armv7): each channel's taps added to 0.0f in window
 * order, then divided by the count. aarch64 divides four lanes at once (vdivq_f32); armv7 NEON has no divide,
 * so its sums are divided one lane at a time by VFP's IEEE divide. A reciprocal would round differently:
 * either way the results are the scalar kernel's bits. */
#include <arm_neon.h>

#include "pool.h"

static float32x4_t clamp4(float32x4_t v, float32x4_t lo, float32x4_t hi) {
    v = vbslq_f32(vcltq_f32(v, lo), lo, v);
    return vbslq_f32(vcgtq_f32(v, hi), hi, v);
}

static float32x4_t divide4(float32x4_t sum, float count) {
#if defined(__aarch64__)
    return vdivq_f32(sum, vdupq_n_f32(count));
#else
    float s[4];
    vst1q_f32(s, sum);
    for (int i = 0; i < 4; ++i) s[i] /= count;
    return vld1q_f32(s);
#endif
}

void f32_avgpool__neon(size_t channels, size_t taps, const float *const *input, float *output, float min,
                       float max) {
    if (taps == 0) {
        f32_avgpool__scalar(channels, taps, input, output, min, max);
        return;
    }
    const float32x4_t lo = vdupq_n_f32(min), hi = vdupq_n_f32(max);
    const float count = (float)taps;
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
        for (size_t t = 0; t < taps; ++t) {
            const float *x = input[t] + c;
            s0 = vaddq_f32(s0, vld1q_f32(x));
            s1 = vaddq_f32(s1, vld1q_f32(x + 4));
            s2 = vaddq_f32(s2, vld1q_f32(x + 8));
            s3 = vaddq_f32(s3, vld1q_f32(x + 12));
        }
        vst1q_f32(output + c, clamp4(divide4(s0, count), lo, hi));
        vst1q_f32(output + c + 4, clamp4(divide4(s1, count), lo, hi));
        vst1q_f32(output + c + 8, clamp4(divide4(s2, count), lo, hi));
        vst1q_f32(output + c + 12, clamp4(divide4(s3, count), lo, hi));
    }
    for (; c + 4 <= channels; c += 4) {
        float32x4_t s = vdupq_n_f32(0.0f);
        for (size_t t = 0; t < taps; ++t) s = vaddq_f32(s, vld1q_f32(input[t] + c));
        vst1q_f32(output + c, clamp4(divide4(s, count), lo, hi));
    }
    for (; c < channels; ++c) {
        float s = 0.0f;
        for (size_t t = 0; t < taps; ++t) s += input[t][c];
        float v = s / count;
        v = v < min ? min : v;
        output[c] = v > max ? max : v;
    }
}
