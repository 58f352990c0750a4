/* s8_binary_ref.c — int8 ADD, SUB, MUL with broadcasting, in the two arithmetics LiteRT's Interpreter uses.
 *
 * LiteRT's default Interpreter hands int8 ADD/SUB/MUL to XNNPACK when the scale ratios are in XNNPACK's
 * range (prepare decides, see elementwise_int8.c) and otherwise runs TFLite's builtin kernel; the two round
 * differently, so both are here, bit for bit:
 * - TFLite ADD/SUB: each input minus its zero point is shifted left by left_shift (20), scaled by its
 *   multiplier (double rounding), summed, then scaled to the output (double rounding again).
 * - TFLite MUL: the product of the offset inputs scaled by one multiplier (double rounding).
 * - XNNPACK ADD/SUB (qs8-vadd): one 32-bit multiply-add per input with ~21-bit multipliers, the zero points
 *   and the rounding term folded into a bias, then an arithmetic right shift (ties toward +infinity).
 * - XNNPACK MUL (qs8-vmul fp32): the offset product times a float scale, clamped in float, rounded to
 *   nearest even.
 */
#include <math.h>

#include "kernels.h"
#include "quant.h"

static int32_t tflite_add(int32_t x, int32_t y, int32_t sign, const rl_s8_binary_params *p) {
    const int32_t sx = (int32_t)((uint32_t)(x - p->a_zero_point) << p->left_shift);
    const int32_t sy = (int32_t)((uint32_t)(y - p->b_zero_point) << p->left_shift);
    const int32_t raw = rl_mul_by_quantized_multiplier(sx, p->a_multiplier, p->a_shift) +
                        sign * rl_mul_by_quantized_multiplier(sy, p->b_multiplier, p->b_shift);
    /* Not matched on purpose: LiteRT 2.3's optimized int8 ADD and MUL (not SUB) narrow this unclamped value to 16
     * bits, wrapping, in its 16-element SIMD blocks (its scalar tails and the reference kernel do not). Only
     * ratios of 256 and more (which XNNPACK refuses) reach |v| > 32767, where rillet
     * saturates as TFLite's reference does; test_int8_elementwise_ops.py pins that. */
    return rl_mul_by_quantized_multiplier(raw, p->output_multiplier, p->output_shift) + p->output_zero_point;
}

static int8_t apply(int32_t x, int32_t y, const rl_s8_binary_params *p) {
    int32_t v = 0;
    switch (p->kind) {
    case RL_S8_ADD_TFLITE: v = tflite_add(x, y, 1, p); break;
    case RL_S8_SUB_TFLITE: v = tflite_add(x, y, -1, p); break;
    case RL_S8_ADDSUB_XNNPACK:
        /* An arithmetic shift of a negative int32: implementation-defined in C99, arithmetic on every
         * compiler rillet supports (as XNNPACK's math_asr_s32 assumes). */
        v = ((p->xnn_bias + x * p->xnn_a_multiplier + y * p->xnn_b_multiplier) >> p->xnn_shift) +
            p->output_zero_point;
        break;
    case RL_S8_MUL_TFLITE:
        v = rl_mul_by_quantized_multiplier((x - p->a_zero_point) * (y - p->b_zero_point), p->output_multiplier,
                                           p->output_shift) + p->output_zero_point;
        break;
    case RL_S8_MUL_XNNPACK: {
        float f = (float)((x - p->a_zero_point) * (y - p->b_zero_point)) * p->scale;
        const float lo = (float)(p->act_min - p->output_zero_point), hi = (float)(p->act_max - p->output_zero_point);
        f = f < lo ? lo : (f > hi ? hi : f);
        v = (int32_t)nearbyintf(f) + p->output_zero_point; /* the default rounding mode: ties to even */
        break;
    }
    }
    return (int8_t)rl_clamp_i32(v, p->act_min, p->act_max);
}

void s8_binary_ref(const rl_broadcast *bc, const rl_s8_binary_params *p, const int8_t *a, const int8_t *b,
                   int8_t *out) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i) *out++ = apply(a[ia + i * sa], b[ib + i * sb], p);
    } while (rl_next_index(7, bc->out_dims, index));
}
