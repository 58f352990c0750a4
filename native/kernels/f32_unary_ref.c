/* f32_unary_ref.c — float32 element-wise RSQRT, EXP, LOG, NEG, RELU, RELU6, LOGISTIC, TANH, HARD_SWISH, SIN,
 * COS, ABS, SQRT, SQUARE. */
#include <math.h>

#include "kernels.h"

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
        case RL_UN_LOGISTIC: r = 1.0f / (1.0f + expf(-v)); break;
        case RL_UN_TANH: r = tanhf(v); break;
        case RL_UN_HARD_SWISH: {
            float t = v + 3.0f;
            t = t > 0.0f ? (t < 6.0f ? t : 6.0f) : 0.0f;
            r = v * t / 6.0f;
            break;
        }
        case RL_UN_SIN: r = sinf(v); break;
        case RL_UN_COS: r = cosf(v); break;
        case RL_UN_ABS: r = fabsf(v); break;
        case RL_UN_SQRT: r = sqrtf(v); break;
        case RL_UN_SQUARE: r = v * v; break;
        }
        y[i] = r;
    }
}

void f32_leaky_relu_ref(int64_t count, float alpha, const float *x, float *y) {
    for (int64_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : x[i] * alpha;
}
