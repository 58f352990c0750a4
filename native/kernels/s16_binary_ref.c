/* s16_binary_ref.c — int16 ADD, SUB, MUL, MAXIMUM and MINIMUM with broadcasting, in LiteRT's builtin arithmetic
 * (zero points are 0 in 16x8 mode, so no offsets):
 * - ADD / SUB, general scales (the converter's pot_scale_int16 = false): each input shifted left 15, scaled by
 *   its multiplier below one (MultiplyByQuantizedMultiplierSmallerThanOneExp), summed or subtracted, rescaled
 *   by the output's multiplier, clamped;
 * - ADD / SUB with power-of-two scales (pot_scale_int16 = true, the LSTM form): the input whose scale is finer
 *   than the output's shifted right with rounding, then a saturating int16 sum or difference;
 * - MUL: the int32 product (at most 2^30) rescaled by one multiplier;
 * - MAXIMUM / MINIMUM on the raw values, as TFLite compares them whatever the scales. */
#include <math.h>

#include "quant.h"
#include "s16_elementwise.h"

static int32_t one(const rl_s16_binary_params *p, int32_t a, int32_t b) {
    int32_t r;
    switch (p->kind) {
    case RL_S16_ADD:
    case RL_S16_SUB: {
        const int32_t sa = rl_mul_by_quantized_multiplier(a * (1 << p->left_shift), p->a_multiplier, p->a_shift);
        const int32_t sb = rl_mul_by_quantized_multiplier(b * (1 << p->left_shift), p->b_multiplier, p->b_shift);
        r = rl_mul_by_quantized_multiplier(p->kind == RL_S16_ADD ? sa + sb : sa - sb, p->out_multiplier, p->out_shift);
        break;
    }
    case RL_S16_ADD_POT:
    case RL_S16_SUB_POT: {
        const int32_t sa = rl_rounding_divide_by_pot(a, -p->a_shift), sb = rl_rounding_divide_by_pot(b, -p->b_shift);
        r = rl_clamp_i32(p->kind == RL_S16_ADD_POT ? sa + sb : sa - sb, -32768, 32767);
        break;
    }
    case RL_S16_MUL: r = rl_mul_by_quantized_multiplier(a * b, p->out_multiplier, p->out_shift); break;
    case RL_S16_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
    return rl_clamp_i32(r, p->act_min, p->act_max);
}

void s16_binary_ref(const rl_s16_binary_params *p, const rl_broadcast *bc, const int16_t *a, const int16_t *b,
                    int16_t *out) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) *out++ = (int16_t)one(p, a[ia + i * sa], b[ib + i * sb]);
    } while (rl_next_index(7, bc->out_dims, index));
}

/* FLOOR_DIV and FLOOR_MOD of int16 operands, as TFLite's int16 kernels compute them on the raw values whatever
 * their quantization: floor of the double quotient (32768 from -32768 / -1 wraps to -32768, as the conversion
 * through int32 does on x86), and the remainder taking the divisor's sign. Returns 1 at a zero divisor. */
int s16_floor_div_mod_ref(int32_t mod, const rl_broadcast *bc, const int16_t *a, const int16_t *b, int16_t *out) {
    if (bc->count == 0) return 0;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) {
            const int32_t x = a[ia + i * sa], y = b[ib + i * sb];
            if (y == 0) return 1;
            int32_t r;
            if (mod) {
                const int32_t trunc = x % y;
                r = trunc != 0 && ((y < 0) != (trunc < 0)) ? trunc + y : trunc;
            } else {
                r = (int32_t)floor((double)x / (double)y);
            }
            *out++ = (int16_t)(uint16_t)(uint32_t)r;
        }
    } while (rl_next_index(7, bc->out_dims, index));
    return 0;
}
