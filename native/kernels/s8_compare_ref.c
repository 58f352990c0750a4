/* s8_compare_ref.c — comparisons of broadcast int8 operands with their own quantizations, TFLite's
 * ComparisonQuantized: each value less its zero point, shifted left by 8, times its scale as a fixed-point
 * multiplier below one (MultiplyByQuantizedMultiplierSmallerThanOneExp), then compared as integers. */
#include "kernels.h"
#include "quant.h"

static int compare(rl_compare_op op, int32_t a, int32_t b) {
    switch (op) {
    case RL_CMP_GREATER: return a > b;
    case RL_CMP_GREATER_EQUAL: return a >= b;
    case RL_CMP_LESS: return a < b;
    case RL_CMP_LESS_EQUAL: return a <= b;
    case RL_CMP_EQUAL: return a == b;
    default: return a != b;
    }
}

void s8_compare_ref(rl_compare_op op, const rl_broadcast *bc, const rl_s8_compare_params *p, const int8_t *a,
                    const int8_t *b, uint8_t *out) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        const int32_t va = (a[ia + index[7] * bc->a_strides[7]] - p->zero_point[0]) * 256;
        const int32_t vb = (b[ib + index[7] * bc->b_strides[7]] - p->zero_point[1]) * 256;
        out[i] = (uint8_t)compare(op, rl_mul_by_quantized_multiplier(va, p->multiplier[0], p->shift[0]),
                                  rl_mul_by_quantized_multiplier(vb, p->multiplier[1], p->shift[1]));
        rl_next_index(8, bc->out_dims, index);
    }
}

/* int32 and int64 operands compare as they are. */
void xx_compare_int_ref(rl_compare_op op, int32_t is_int64, const rl_broadcast *bc, const void *a, const void *b,
                        uint8_t *out) {
    int64_t index[8] = {0};
    for (int64_t i = 0; i < bc->count; ++i) {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        ia += index[7] * bc->a_strides[7];
        ib += index[7] * bc->b_strides[7];
        const int64_t va = is_int64 ? ((const int64_t *)a)[ia] : ((const int32_t *)a)[ia];
        const int64_t vb = is_int64 ? ((const int64_t *)b)[ib] : ((const int32_t *)b)[ib];
        out[i] = (uint8_t)(op == RL_CMP_GREATER ? va > vb : op == RL_CMP_GREATER_EQUAL ? va >= vb
                           : op == RL_CMP_LESS ? va < vb : op == RL_CMP_LESS_EQUAL ? va <= vb
                           : op == RL_CMP_EQUAL ? va == vb : va != vb);
        rl_next_index(8, bc->out_dims, index);
    }
}
