/* qs8_qc8w_dwconv_16c_pairs__neon.c — qs8_qc8w_dwconv_16c__neon for filters without a weight of -128 (the
 * driver checks at prepare): two taps' products summed in int16 before they are widened into the int32 sums
 * (qs8_qc8w_dwconv_16c__neon.h), which is exact for such weights, so the bits are the scalar kernel's. */
#include "qs8_qc8w_dwconv_16c__neon.h"

void qs8_qc8w_dwconv_16c_pairs__neon(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                     size_t indirection_step, const int8_t *const *weights, const void *packed,
                                     int8_t *output, size_t output_stride,
                                     const rl_qs8_requantization_params *params) {
    dwconv_16c(channels, pixels, taps, indirection, indirection_step, weights, packed, output, output_stride, params,
               1);
}
