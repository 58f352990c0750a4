/* f32_unary_math_ref.c — float32 FLOOR, CEIL, ROUND (half to even, TFLite's RoundToNearest), ELU (expm1 below
 * zero), GELU (erfc form, or tanh form when approximate, TFLite's reference formulas) and RELU_N1_TO_1. */
#include <math.h>

#include "kernels.h"

void f32_unary_math_ref(rl_math_unary_op op, int64_t count, const float *x, float *y) {
    for (int64_t i = 0; i < count; ++i) {
        const float v = x[i];
        float r;
        switch (op) {
        case RL_MATH_FLOOR: r = floorf(v); break;
        case RL_MATH_CEIL: r = ceilf(v); break;
        case RL_MATH_ROUND: r = nearbyintf(v); break;
        case RL_MATH_ELU: r = v < 0.0f ? expm1f(v) : v; break;
        case RL_MATH_GELU: r = 0.5f * v * erfcf(v * -0.7071067811865475f); break;
        case RL_MATH_GELU_TANH:
            r = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
            break;
        default: r = v < -1.0f ? -1.0f : (v > 1.0f ? 1.0f : v); break;
        }
        y[i] = r;
    }
}
