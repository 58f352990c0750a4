/* f32_dwconv__scalar.c — the float32 depthwise convolution specification (any taps, channel tile 4).
 *
 * Each output channel starts from its bias and adds in[t][c] * w[t][c] for t ascending, rounding after
 * the multiply and the add; SIMD kernels fuse them and agree within a few ulps of the sum of |terms|.
 * Inputs are read only for c < channels, though the packed weights are padded to the tile. */
#include "f32_microkernels.h"

enum { CT = 4 };

void f32_dwconv__scalar(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                        size_t indirection_step, const float *w, float *output, size_t output_stride,
                        const rl_f32_minmax_params *params) {
    const float vmin = params->min, vmax = params->max;
    for (size_t p = 0; p < pixels; ++p) {
        const float *const *in = indirection + p * indirection_step;
        float *out = output + p * output_stride;
        const float *tile = w;
        for (size_t c0 = 0; c0 < channels; c0 += CT) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            float acc[CT];
            for (size_t j = 0; j < count; ++j) acc[j] = tile[j];
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                const float *wt = tile + CT * (1 + t);
                for (size_t j = 0; j < count; ++j) acc[j] += x[j] * wt[j];
            }
            for (size_t j = 0; j < count; ++j) {
                float v = acc[j];
                v = v < vmin ? vmin : v;
                v = v > vmax ? vmax : v;
                out[c0 + j] = v;
            }
            tile += CT * (1 + taps);
        }
    }
}
