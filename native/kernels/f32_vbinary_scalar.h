/* f32_vbinary_scalar.h — one element of a float32 binary op and its clamp, f32_binary_ref's arithmetic: the
 * scalar kernels (the specification) and the NEON kernels' last 1-3 elements compute with these. */
#ifndef RILLET_F32_VBINARY_SCALAR_H
#define RILLET_F32_VBINARY_SCALAR_H

#include "kernels.h"

static inline float rl_f32_binary_apply(rl_binary_op op, float x, float y) {
    switch (op) {
    case RL_BIN_ADD: return x + y;
    case RL_BIN_SUB: return x - y;
    case RL_BIN_MUL: return x * y;
    case RL_BIN_DIV: return x / y;
    case RL_BIN_SQUARED_DIFFERENCE: { const float d = x - y; return d * d; }
    /* TFLite's std::max / std::min: a NaN in x loses to y, a NaN in y is kept as x */
    case RL_BIN_MAXIMUM: return x < y ? y : x;
    case RL_BIN_MINIMUM: return y < x ? y : x;
    case RL_BIN_PRELU: return x >= 0.0f ? x : x * y;
    }
    return 0.0f;
}

static inline float rl_f32_binary_clamp(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return v > hi ? hi : v;
}

/* Calls CASE(op) with op a constant in each branch, so an always-inlined loop is compiled once per op with
 * no switch inside it. */
#define RL_F32_BINARY_DISPATCH(op, CASE)                                                                        \
    switch (op) {                                                                                               \
    case RL_BIN_ADD: CASE(RL_BIN_ADD); break;                                                                   \
    case RL_BIN_SUB: CASE(RL_BIN_SUB); break;                                                                   \
    case RL_BIN_MUL: CASE(RL_BIN_MUL); break;                                                                   \
    case RL_BIN_DIV: CASE(RL_BIN_DIV); break;                                                                   \
    case RL_BIN_SQUARED_DIFFERENCE: CASE(RL_BIN_SQUARED_DIFFERENCE); break;                                     \
    case RL_BIN_MAXIMUM: CASE(RL_BIN_MAXIMUM); break;                                                           \
    case RL_BIN_MINIMUM: CASE(RL_BIN_MINIMUM); break;                                                           \
    case RL_BIN_PRELU: CASE(RL_BIN_PRELU); break;                                                               \
    }

#endif
