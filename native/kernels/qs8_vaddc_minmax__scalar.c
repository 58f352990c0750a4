/* qs8_vaddc_minmax__scalar.c — int8 ADD/SUB of a vector and one element b[0] in XNNPACK's arithmetic
 * (qs8-vaddc): the element's term b[0] * b_multiplier folded into the bias once, then per element
 * (bias + a * a_multiplier) >> shift, plus the output zero point, clamped. Integer addition wraps the same
 * in either order, so this is qs8_vadd_minmax__scalar with b repeated, bit for bit. The specification of
 * the qs8_vaddc family. */
#include "kernels.h"

void qs8_vaddc_minmax__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const int32_t bias = (int32_t)((uint32_t)p->xnn_bias + (uint32_t)(b[0] * p->xnn_b_multiplier));
    const int32_t am = p->xnn_a_multiplier, shift = p->xnn_shift;
    const int32_t zp = p->output_zero_point, lo = p->act_min, hi = p->act_max;
    for (size_t i = 0; i < n; ++i) {
        /* An arithmetic shift of a negative int32, as XNNPACK's math_asr_s32 assumes of every compiler. */
        const int32_t v = ((bias + a[i] * am) >> shift) + zp;
        out[i] = (int8_t)(v < lo ? lo : (v > hi ? hi : v));
    }
}
