/* b8_logical_ref.c — LOGICAL_AND, LOGICAL_OR over broadcast bools (one byte each, any nonzero is true) and
 * LOGICAL_NOT; results are 0 or 1. */
#include "kernels.h"

void b8_logical_ref(int32_t is_or, const rl_broadcast *bc, const uint8_t *a, const uint8_t *b, uint8_t *out) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        ia += index[7] * bc->a_strides[7];
        ib += index[7] * bc->b_strides[7];
        out[i] = (uint8_t)(is_or ? (a[ia] || b[ib]) : (a[ia] && b[ib]));
        rl_next_index(8, bc->out_dims, index);
    }
}

void b8_logical_not_ref(int64_t count, const uint8_t *x, uint8_t *y) {
    for (int64_t i = 0; i < count; ++i) y[i] = (uint8_t)!x[i];
}
