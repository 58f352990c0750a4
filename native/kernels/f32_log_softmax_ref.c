/* f32_log_softmax_ref.c — float32 log-softmax over the last axis as TFLite's optimized kernel computes it (the
 * one LiteRT's default interpreter runs: XNNPACK takes no LOG_SOFTMAX), on x86 where its Eigen has SSE's
 * 4-float packets and no FMA:
 *   max = the row's largest value;
 *   sum = Eigen's sum of exp(x - max) (Redux.h): two packet sums over alternate 4-element packets from the
 *         first, added, plus a last odd packet, then (lane0 + lane2) + (lane1 + lane3); each packet's exp
 *         Eigen's pexp_float (below), the elements past the last whole packet expf'd and added one by one
 *         (a row under 4 elements: all of them, in order);
 *   y = (x - max) - logf(sum).
 * A cross-entropy loss reads its log-softmax where the loss is small: -log(p) for p near 1 is log(sum) for a
 * sum near 1, so one ulp of the sum is 1e-7 / loss relative; MobileNetV2's training loss at 0.024 moved 8e-5
 * relative from LiteRT's with the sum of expf's in order (TFLite's reference kernel). Every multiply and add
 * rounded (ISO C, no contraction), as Eigen's pmadd without FMA. */
/* clang contracts a * b + c within a statement by default even in ISO C mode (gcc's -std=c99 does not):
 * the order above has every product rounded. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"

static float bits_to_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* 2^e for an integer e whose biased exponent e + 127 lies in 1 .. 254: its bits. */
static float power_of_two(int32_t e) { return bits_to_float((uint32_t)(e + 127) << 23); }

/* floorf(t), exactly, without a libm call (which SSE2 has no instruction for): below 2^23 in magnitude through
 * an int32, else t is whole already (or not a number). */
static float floor_of(float t) {
    if (!(fabsf(t) < 8388608.0f)) return t;
    const float truncated = (float)(int32_t)t;
    return truncated > t ? truncated - 1.0f : truncated;
}

/* Eigen's pexp_float on one 4-element packet (GenericPacketMathFunctions.h): m = floor(x log2(e) + 1/2),
 * r = x - m ln 2 in two parts, a degree-6 polynomial, times 2^m (directly when every lane's |x| <= 87, else in
 * four factors, with 0 below -104); the result's max with x as Eigen's. */
static void eigen_exp4(const float x_in[4], float out[4]) {
    float m[4], y[4];
    int large = 0;
    for (int l = 0; l < 4; ++l) {
        const float x = x_in[l] < 88.723f ? x_in[l] : 88.723f;
        large |= fabsf(x) > 87.0f;
        m[l] = floor_of(x * 1.44269504088896341f + 0.5f);
        float r = m[l] * -0.693359375f + x;
        r = m[l] * 2.12194440e-4f + r;
        const float r2 = r * r;
        float even = r2 * 1.37449637986719608306884765625e-3f + 4.166965186595916748046875e-2f;
        const float odd = r2 * 8.36894474923610687255859375e-3f + 0.16666518151760101318359375f;
        even = r2 * even + 0.49999988079071044921875f;
        const float low = r + 1.0f;
        y[l] = r2 * (r * odd + even) + low;
    }
    if (!large) { /* pldexp_fast: the biased exponent clamped to 0 .. 255 */
        for (int l = 0; l < 4; ++l) {
            const float biased = m[l] + 127.0f;
            const int32_t e = (int32_t)(biased < 0.0f ? 0.0f : biased > 255.0f ? 255.0f : biased);
            const float v = y[l] * bits_to_float((uint32_t)e << 23);
            out[l] = v > x_in[l] ? v : x_in[l];
        }
        return;
    }
    for (int l = 0; l < 4; ++l) { /* pldexp_generic: 2^b three times, then 2^(e - 3b); 0 below -104 */
        const float clamped = m[l] < -278.0f ? -278.0f : m[l] > 278.0f ? 278.0f : m[l];
        const int32_t e = (int32_t)clamped, b = e >> 2;
        const float c = power_of_two(b);
        const float v = y[l] * c * c * c * power_of_two(e - 3 * b);
        out[l] = x_in[l] < -104.0f ? 0.0f : v > x_in[l] ? v : x_in[l];
    }
}

static void packet_add(float sum[4], const float *x, float max) {
    float shifted[4], e[4];
    for (int l = 0; l < 4; ++l) shifted[l] = x[l] - max;
    eigen_exp4(shifted, e);
    for (int l = 0; l < 4; ++l) sum[l] += e[l];
}

static float exp_sum(int32_t depth, const float *x, float max) {
    const int32_t whole = depth / 4 * 4, pairs = depth / 8 * 8;
    float total;
    if (whole == 0) {
        total = expf(x[0] - max);
        for (int32_t i = 1; i < depth; ++i) total += expf(x[i] - max);
        return total;
    }
    float even[4] = {0.0f, 0.0f, 0.0f, 0.0f}, odd[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    packet_add(even, x, max); /* 0 + e is e: the first packet itself, as Eigen starts from it */
    if (whole > 4) {
        packet_add(odd, x + 4, max);
        for (int32_t i = 8; i < pairs; i += 8) {
            packet_add(even, x + i, max);
            packet_add(odd, x + i + 4, max);
        }
        for (int l = 0; l < 4; ++l) even[l] += odd[l];
        if (whole > pairs) packet_add(even, x + pairs, max);
    }
    total = (even[0] + even[2]) + (even[1] + even[3]);
    for (int32_t i = whole; i < depth; ++i) total += expf(x[i] - max);
    return total;
}

void f32_log_softmax_ref(int64_t rows, int32_t depth, const float *x, float *y) {
    for (int64_t r = 0; r < rows; ++r) {
        const float *in = x + r * depth;
        float *out = y + r * depth;
        float max = in[0];
        for (int32_t i = 1; i < depth; ++i) max = in[i] > max ? in[i] : max;
        const float log_sum = logf(exp_sum(depth, in, max));
        for (int32_t i = 0; i < depth; ++i) out[i] = (in[i] - max) - log_sum;
    }
}
