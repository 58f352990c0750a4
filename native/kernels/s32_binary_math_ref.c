/* s32_binary_math_ref.c — int32 POW, FLOOR_DIV and FLOOR_MOD over broadcast operands, as TFLite's builtin
 * kernels: POW by repeated squaring with wrapping products (a negative exponent is an error), FLOOR_DIV as
 * the floor of the double quotient, FLOOR_MOD as C's remainder moved to the divisor's sign. Returns 0, or 1
 * for a zero divisor or a negative exponent (TFLite refuses both). */
#include <math.h>

#include "kernels.h"

static int apply(rl_math_binary_op op, int32_t a, int32_t b, int32_t *r) {
    if (op == RL_MATH_POW) {
        if (b < 0) return 1;
        uint32_t result = 1, base = (uint32_t)a;
        for (uint32_t e = (uint32_t)b; e; e >>= 1) {
            if (e & 1u) result *= base;
            base *= base;
        }
        *r = (int32_t)result;
        return 0;
    }
    if (b == 0) return 1;
    if (op == RL_MATH_FLOOR_DIV) {
        const double q = floor((double)a / (double)b);
        *r = q >= 2147483648.0 ? INT32_MIN : (int32_t)q; /* INT32_MIN / -1: what x86's conversion gives */
        return 0;
    }
    const int32_t m = (a == INT32_MIN && b == -1) ? 0 : a % b;
    *r = (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
    return 0;
}

int s32_binary_math_ref(rl_math_binary_op op, const rl_broadcast *bc, const int32_t *a, const int32_t *b, int32_t *out) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        if (apply(op, a[ia + index[7] * bc->a_strides[7]], b[ib + index[7] * bc->b_strides[7]], &out[i])) return 1;
        rl_next_index(8, bc->out_dims, index);
    }
    return 0;
}
