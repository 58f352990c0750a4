/* qs8_qc8w_dwconv_4c__scalar.c — int8 depthwise convolution, per-channel int8 weights, any number of taps,
 * 4 channels per packed tile: the specification every other qs8 depthwise kernel reproduces bit for bit.
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
                                size_t indirection_step, const void *w, int8_t *output, size_t output_stride,
                                const rl_qs8_requantization_params *params) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + taps + sizeof(float));
    for (size_t px = 0; px < pixels; ++px) {
        const int8_t *const *inputs = indirection + px * indirection_step;
        int8_t *out = output + px * output_stride;
        const unsigned char *tile = w;
        for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            uint32_t acc[CT];
            float scale[CT];
            memcpy(acc, tile, sizeof acc);
            const signed char *wt = (const signed char *)(tile + sizeof acc);
            memcpy(scale, wt + taps * CT, sizeof scale);
            for (size_t t = 0; t < taps; ++t) {
                const int8_t *x = inputs[t] + c0;
                for (size_t j = 0; j < count; ++j) acc[j] += (uint32_t)((int32_t)x[j] * (int32_t)wt[t * CT + j]);
            }
            for (size_t j = 0; j < count; ++j) out[c0 + j] = rl_qs8_requantize_scalar(acc[j], scale[j], params);
        }
    }
}
