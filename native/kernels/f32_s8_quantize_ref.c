/* f32_s8_quantize_ref.c — float32 to int8: round(x * (1 / scale)) with ties to even, plus the zero point.
 *
 * Multiplying by the float reciprocal (not dividing by the scale) is what XNNPACK's f32-qs8 conversion
 * does, and LiteRT's default Interpreter runs it; TFLite's reference kernel divides and rounds ties away
 * from zero, and differs from it on values near a tie. */
#include "kernels.h"

void f32_s8_quantize_ref(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y) {
    const float lo = (float)(-128 - zero_point), hi = (float)(127 - zero_point);
    for (int64_t i = 0; i < count; ++i) {
        float v = x[i] * inverse_scale;
        v = v > lo ? v : lo; /* NaN goes to the lower bound */
        v = v < hi ? v : hi;
        y[i] = (int8_t)((int32_t)nearbyintf(v) + zero_point);
    }
}
