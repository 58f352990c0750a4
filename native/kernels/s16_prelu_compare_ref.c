/* s16_prelu_compare_ref.c — int16 PRELU and comparisons with broadcasting, as LiteRT's builtin kernels:
 * - PRELU: an int16 input with int8 alpha (TFLite reads alpha's bytes as int8 whatever its type says);
 *   x >= 0 rescaled by input/output, x < 0 by x * (alpha - alpha_zero_point) times input * alpha / output;
 * - EQUAL / NOT_EQUAL: each side shifted left 8 and scaled by its own scale's multiplier (below one), so
 *   values of different scales compare by real value; LESS, LESS_EQUAL, GREATER, GREATER_EQUAL compare the raw
 *   int16 values, as TFLite's int16 kernels for them do whatever the scales. */
#include "quant.h"
#include "s16_elementwise.h"

void s16_prelu_ref(const rl_s16_prelu_params *p, const rl_broadcast *bc, const int16_t *x, const int8_t *alpha,
                   int16_t *out) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) {
            const int32_t v = x[ia + i * sa];
            const int32_t r = v >= 0 ? rl_mul_by_quantized_multiplier(v, p->pos_multiplier, p->pos_shift)
                                     : rl_mul_by_quantized_multiplier(v * (alpha[ib + i * sb] - p->alpha_zero_point),
                                                                      p->neg_multiplier, p->neg_shift);
            *out++ = (int16_t)rl_clamp_i32(r, -32768, 32767);
        }
    } while (rl_next_index(7, bc->out_dims, index));
}

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

void s16_compare_ref(rl_compare_op op, const rl_s16_compare_params *p, const rl_broadcast *bc, const int16_t *a,
                     const int16_t *b, uint8_t *out) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) {
            int32_t x = a[ia + i * sa], y = b[ib + i * sb];
            if (p->scaled) {
                x = rl_mul_by_quantized_multiplier(x * (1 << 8), p->a_multiplier, p->a_shift);
                y = rl_mul_by_quantized_multiplier(y * (1 << 8), p->b_multiplier, p->b_shift);
            }
            *out++ = (uint8_t)compare(op, x, y);
        }
    } while (rl_next_index(7, bc->out_dims, index));
}
