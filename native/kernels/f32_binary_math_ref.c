/* f32_binary_math_ref.c — float32 POW, FLOOR_DIV and FLOOR_MOD over broadcast operands, as TFLite's builtin
 * kernels compute them: powf; floor of the quotient taken in double (its FloorDiv divides as double); fmod,
 * moved to the divisor's sign when nonzero. */
#include <math.h>

#include "kernels.h"

static float apply(rl_math_binary_op op, float a, float b) {
    switch (op) {
    case RL_MATH_POW: return powf(a, b);
    case RL_MATH_FLOOR_DIV: return (float)floor((double)a / (double)b);
    default: {
        const float r = fmodf(a, b);
        return (r != 0.0f && ((b < 0.0f) != (r < 0.0f))) ? r + b : r;
    }
    }
}

void f32_binary_math_ref(rl_math_binary_op op, const rl_broadcast *bc, const float *a, const float *b, float *out) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        out[i] = apply(op, a[ia + index[7] * bc->a_strides[7]], b[ib + index[7] * bc->b_strides[7]]);
        rl_next_index(8, bc->out_dims, index);
    }
}
