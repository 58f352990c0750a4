/* f32_unary_ref.c — float32 element-wise RSQRT, EXP, LOG, NEG, RELU, RELU6, LOGISTIC, TANH, HARD_SWISH, SIN,
 * COS, ABS, SQRT, SQUARE. */
#include <math.h>

#include "f32_unary.h"

/* HARD_SWISH as XNNPACK computes it, which LiteRT's default Interpreter delegates to: x * clamp(fma(x, 1/6,
 * 0.5), 0, 1); TFLite's x * clamp(x + 3, 0, 6) / 6 differs in the last bit for a fifth of inputs. In double, x
 * times (float)(1/6) is exact and the sum rounds once, so its rounding to float is the fused multiply-add's
 * result once clamped (checked over every finite float), on CPUs without FMA too. The two passes over a block
 * let gcc vectorise both (one loop with the conversion and the clamp stays scalar under -ftrapping-math). */
static void hard_swish_as_xnnpack(int64_t count, const float *x, float *y) {
    enum { BLOCK = 64 };
    float t[BLOCK];
    for (int64_t start = 0; start < count; start += BLOCK) {
        const int64_t n = count - start < BLOCK ? count - start : BLOCK;
        for (int64_t i = 0; i < n; ++i) t[i] = (float)((double)x[start + i] * (double)(1.0f / 6.0f) + 0.5);
        for (int64_t i = 0; i < n; ++i) {
            float v = t[i] > 0.0f ? t[i] : 0.0f;
            v = v < 1.0f ? v : 1.0f;
            y[start + i] = x[start + i] * v;
        }
    }
}

void f32_unary_ref(rl_unary_op op, int64_t count, const float *x, float *y) {
    /* The cheap ones (a training step's activations and their gradients) get loops of their own, which the
     * compiler vectorises; the switch below, per element, is for the ones a libm call dominates anyway. */
    switch (op) {
    case RL_UN_RELU: for (int64_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f; return;
    case RL_UN_RELU6:
        for (int64_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? (x[i] < 6.0f ? x[i] : 6.0f) : 0.0f;
        return;
    case RL_UN_NEG: for (int64_t i = 0; i < count; ++i) y[i] = -x[i]; return;
    case RL_UN_SQUARE: for (int64_t i = 0; i < count; ++i) y[i] = x[i] * x[i]; return;
    case RL_UN_HARD_SWISH: hard_swish_as_xnnpack(count, x, y); return;
    default: break;
    }
    for (int64_t i = 0; i < count; ++i) {
        const float v = x[i];
        float r = 0.0f;
        switch (op) {
        case RL_UN_RSQRT: r = 1.0f / sqrtf(v); break;
        case RL_UN_EXP: r = expf(v); break;
        case RL_UN_LOG: r = logf(v); break;
        case RL_UN_NEG: r = -v; break;
        case RL_UN_RELU: r = v > 0.0f ? v : 0.0f; break;
        case RL_UN_RELU6: r = v > 0.0f ? (v < 6.0f ? v : 6.0f) : 0.0f; break;
        case RL_UN_LOGISTIC: r = f32_sigmoid_as_xnnpack_avx2(v); break;
        case RL_UN_TANH: r = f32_tanh_as_xnnpack(v); break;
        case RL_UN_SIN: r = sinf(v); break;
        case RL_UN_COS: r = cosf(v); break;
        case RL_UN_ABS: r = fabsf(v); break;
        case RL_UN_SQRT: r = sqrtf(v); break;
        case RL_UN_SQUARE: r = v * v; break;
        case RL_UN_HARD_SWISH: hard_swish_as_xnnpack(1, &v, &r); break;
        }
        y[i] = r;
    }
}

void f32_leaky_relu_ref(int64_t count, float alpha, const float *x, float *y) {
    for (int64_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
}
