/* qs8_vmulc_minmax_fp32__scalar.c — int8 MUL of a vector and one element b[0] in XNNPACK's arithmetic
 * (qs8-vmulc fp32): qs8_vmul_minmax_fp32__scalar with b repeated, the element's offset taken once. The
 * specification of the qs8_vmulc family. */
#include <math.h>

#include "kernels.h"

void qs8_vmulc_minmax_fp32__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                   const rl_s8_binary_params *p) {
    const int32_t za = p->a_zero_point, vb = b[0] - p->b_zero_point, zp = p->output_zero_point;
    const float scale = p->scale, lo = (float)(p->act_min - zp), hi = (float)(p->act_max - zp);
    for (size_t i = 0; i < n; ++i) {
        float f = (float)((a[i] - za) * vb) * scale;
        f = f < lo ? lo : (f > hi ? hi : f);
        out[i] = (int8_t)((int32_t)nearbyintf(f) + zp); /* the default rounding mode: ties to even */
    }
}
