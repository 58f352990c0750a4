/* qs8_qc8w_dwconv_16c__neon.c — int8 depthwise convolution, per-channel int8 weights, any taps, 16 channels per
 * packed tile, NEON (aarch64 and armv7), bit for bit with the scalar kernel: each tap's products widened into
 * the int32 sums one tap at a time (qs8_qc8w_dwconv_16c__neon.h), so any weight, -128 included. */
#include "qs8_qc8w_dwconv_16c__neon.h"

void qs8_qc8w_dwconv_16c__neon(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                               size_t indirection_step, const int8_t *const *weights, const void *packed,
                               int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params) {
    dwconv_16c(channels, pixels, taps, indirection, indirection_step, weights, packed, output, output_stride, params,
               0);
}
