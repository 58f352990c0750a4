/* f16_f32_convert_ref.c — IEEE half to float32, exactly (every half is a float), subnormals, infinities and
 * NaNs included; float16-weight models DEQUANTIZE their constants with it when the plan is prepared. */
#include <string.h>

#include "kernels.h"

static float half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1fu) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent != 0) {
        bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
        bits = sign;
    } else { /* subnormal: mantissa * 2^-24, exact in float */
        const float magnitude = (float)mantissa * 5.9604644775390625e-8f;
        memcpy(&bits, &magnitude, sizeof bits);
        bits |= sign;
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void f16_f32_convert_ref(int64_t count, const uint16_t *x, float *y) {
    for (int64_t i = 0; i < count; ++i) y[i] = half_to_float(x[i]);
}
