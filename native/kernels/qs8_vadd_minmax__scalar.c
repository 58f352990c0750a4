/* qs8_vadd_minmax__scalar.c — int8 ADD/SUB of same-shape operands in XNNPACK's arithmetic (qs8-vadd, see
 * s8_binary_ref.c): (bias + a * a_multiplier + b * b_multiplier) >> shift, plus the output zero point,
 * clamped. The specification of the qs8_vadd family. */
#include "kernels.h"

void qs8_vadd_minmax__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p) {
    const int32_t bias = p->xnn_bias, am = p->xnn_a_multiplier, bm = p->xnn_b_multiplier, shift = p->xnn_shift;
    const int32_t zp = p->output_zero_point, lo = p->act_min, hi = p->act_max;
    for (size_t i = 0; i < n; ++i) {
        /* An arithmetic shift of a negative int32, as XNNPACK's math_asr_s32 assumes of every compiler. */
        const int32_t v = ((bias + a[i] * am + b[i] * bm) >> shift) + zp;
        out[i] = (int8_t)(v < lo ? lo : (v > hi ? hi : v));
    }
}
