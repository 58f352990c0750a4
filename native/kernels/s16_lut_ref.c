/* s16_lut_ref.c — TFLite's int16 lookup tables: 512 samples of a function over the int16 input range plus one
 * end point, each sample biased by half the error its linear interpolation makes at the step's midpoint, then
 * looked up by the top 9 bits of the input and interpolated by the low 7. SOFTMAX builds its exp and
 * 1 / (1 + x) tables this way, in double. */
#include <math.h>

#include "s16_elementwise.h"

static double clamp_table(double v) { return v < -32768.0 ? -32768.0 : (v > 32767.0 ? 32767.0 : v); }

void s16_lut_populate(double input_scale, int32_t input_zero_point, double output_scale, int32_t output_zero_point,
                      double (*transform)(double), int16_t *lut) {
    const double input_min = input_scale * (double)(-32768 - input_zero_point);
    const double input_max = input_scale * (double)(32767 - input_zero_point);
    const double output_min = output_scale * (double)(-32768 - output_zero_point);
    const double output_max = output_scale * (double)(32767 - output_zero_point);
    const int steps = RL_S16_LUT_SIZE - 1;
    const double step = (input_max - input_min) / steps, half_step = step / 2;
    const double inv = 65536.0 / (output_max - output_min);
    for (int i = 0; i < steps; ++i) {
        const double val = transform(input_min + i * step);
        const double val_midpoint = transform(input_min + i * step + half_step);
        const double val_next = transform(input_min + (i + 1) * step);
        const double sample = round(val * inv);
        const double midpoint_interpolated = round((val_next * inv + round(val * inv)) / 2);
        const double midpoint = round(val_midpoint * inv);
        const double bias = round((midpoint_interpolated - midpoint) / 2);
        lut[i] = (int16_t)clamp_table(sample - bias);
    }
    lut[steps] = (int16_t)clamp_table(round(transform(input_max) * inv));
}

/* TFLite keeps the slope in int16 (a step from 32767 to -32768 wraps to +1) and the sum's int16 cast wraps too:
 * tables that saturate (EXP of a wide input range) depend on both. */
int16_t rl_s16_lut_lookup(int16_t value, const int16_t *lut) {
    const int32_t index = 256 + (value >> 7);
    const int32_t offset = value & 0x7f;
    const int32_t base = lut[index];
    const int32_t slope = (int16_t)(uint16_t)(uint32_t)(lut[index + 1] - lut[index]);
    return (int16_t)(uint16_t)(uint32_t)(base + ((slope * offset + 64) >> 7));
}

void s16_lut_ref(int64_t n, const int16_t *lut, const int16_t *x, int16_t *y) {
    for (int64_t i = 0; i < n; ++i) y[i] = rl_s16_lut_lookup(x[i], lut);
}

static float clamp_table_f32(float v) { return v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v); }

/* Zero points are 0 in 16x8 mode. Every step is float arithmetic, in TFLite's order. */
void s16_lut_populate_f32(float input_scale, float output_scale, float (*transform)(float, const void *),
                          const void *params, int16_t *lut) {
    const float input_min = input_scale * -32768.0f, input_max = input_scale * 32767.0f;
    const float output_min = output_scale * -32768.0f, output_max = output_scale * 32767.0f;
    const int steps = RL_S16_LUT_SIZE - 1;
    const float step = (input_max - input_min) / (float)steps, half_step = step / 2.0f;
    const float inv = 65536.0f / (output_max - output_min);
    for (int i = 0; i < steps; ++i) {
        const float at = input_min + (float)i * step;
        const float val = transform(at, params);
        const float val_midpoint = transform(at + half_step, params);
        const float val_next = transform(input_min + (float)(i + 1) * step, params);
        const float sample = roundf(val * inv);
        const float scaled_next = val_next * inv; /* kept apart: no contraction into a fused multiply-add */
        const float midpoint_interpolated = roundf((scaled_next + roundf(val * inv)) / 2.0f);
        const float midpoint = roundf(val_midpoint * inv);
        const float bias = roundf((midpoint_interpolated - midpoint) / 2.0f);
        lut[i] = (int16_t)clamp_table_f32(sample - bias);
    }
    lut[steps] = (int16_t)clamp_table_f32(roundf(transform(input_max, params) * inv));
}
