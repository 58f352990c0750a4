/* qs8_qc8w_dwconv_4c__scalar.c — int8 depthwise convolution, per-channel int8 weights, any number of taps,
 * 4 channels per packed tile of biases and scales, the weights read where the model holds them (dwconv.h):
 * the specification every other qs8 depthwise kernel reproduces bit for bit.
 *
 * Sums wrap modulo 2^32 (uint32) and requantize as in qs8_qc8w_gemm_2x4c1__scalar.c, whose comment says why.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "qs8_configs.h"
#include "qs8_requantize__scalar.h"

enum { CT = 4 };


void qs8_qc8w_dwconv_4c__scalar(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                size_t indirection_step, const int8_t *const *weights, const void *packed,
                                int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    for (size_t px = 0; px < pixels; ++px) {
        const int8_t *const *inputs = indirection + px * indirection_step;
        int8_t *out = output + px * output_stride;
        const unsigned char *tile = packed;
        for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            uint32_t acc[CT];
            float scale[CT];
            memcpy(acc, tile, sizeof acc);
            memcpy(scale, tile + sizeof acc, sizeof scale);
            for (size_t t = 0; t < taps; ++t) {
                const int8_t *x = inputs[t] + c0, *wt = weights[t] + c0;
                for (size_t j = 0; j < count; ++j) acc[j] += (uint32_t)((int32_t)x[j] * (int32_t)wt[j]);
            }
            for (size_t j = 0; j < count; ++j) out[c0 + j] = rl_qs8_requantize_scalar(acc[j], scale[j], params);
        }
    }
}
