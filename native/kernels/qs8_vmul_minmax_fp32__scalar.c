/* qs8_vmul_minmax_fp32__scalar.c — int8 MUL of same-shape operands in XNNPACK's arithmetic (qs8-vmul fp32,
 * see s8_binary_ref.c): the product of the zero-point-offset inputs (exact in int32 and in float) times the
 * float product-to-output scale, clamped in float to the output range less its zero point, rounded to
 * nearest even, plus the zero point. The specification of the qs8_vmul family. */
#include <math.h>

#include "kernels.h"

void qs8_vmul_minmax_fp32__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                  const rl_s8_binary_params *p) {
    const int32_t za = p->a_zero_point, zb = p->b_zero_point, zp = p->output_zero_point;
    const float scale = p->scale, lo = (float)(p->act_min - zp), hi = (float)(p->act_max - zp);
    for (size_t i = 0; i < n; ++i) {
        float f = (float)((a[i] - za) * (b[i] - zb)) * scale;
        f = f < lo ? lo : (f > hi ? hi : f);
        out[i] = (int8_t)((int32_t)nearbyintf(f) + zp); /* the default rounding mode: ties to even */
    }
}
