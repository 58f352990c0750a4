/* s16_div_ref.c — int16 DIV of broadcast operands (zero points 0): TFLite's builtin arithmetic, the int8 DIV's
 * quotient (s8_div_ref.c: a Newton-Raphson reciprocal of the divisor, the dividend scaled by its headroom,
 * then the scale ratio) on int16 values. The caller has checked that no divisor is 0. */
#include "quant.h"
#include "s16_elementwise.h"

void s16_div_ref(const rl_broadcast *bc, const rl_s8_div_params *p, const int16_t *a, const int16_t *b, int16_t *y) {
    if (bc->count == 0) return;
    int64_t index[8] = {0};
    const int64_t inner = bc->out_dims[7], sa = bc->a_strides[7], sb = bc->b_strides[7];
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        for (int64_t i = 0; i < inner; ++i)
            *y++ = (int16_t)rl_tflite_quantized_divide(a[ia + i * sa], b[ib + i * sb], p);
    } while (rl_next_index(7, bc->out_dims, index));
}
