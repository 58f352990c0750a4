/* f32_transpose_conv_ref.c — float32 TRANSPOSE_CONV: the adjoint of a convolution, scattering each input
 * pixel through the filter into the output, as TFLite's reference kernel does.
 *
 * `g` describes the convolution it transposes: g->in_* is TRANSPOSE_CONV's output [batch, in_h, in_w, in_c],
 * g->out_* its input [batch, out_h, out_w, out_c]. The filter comes packed as [filter_h][filter_w][out_c][in_c]
 * (TFLite's [in_c, kh, kw, out_c] with each tap's matrix transposed, which the op does at every invoke, the
 * filter being a training step's variable): input pixel (y, x) adds x[i] * filter[fy][fx][i][:] to output
 * (y * stride - pad + fy, ...), a contiguous row of in_c values that the compiler vectorises. Then the bias
 * and the activation's clamp.
 */
#include <string.h>

#include "kernels.h"

void f32_transpose_conv_ref(const rl_window_geometry *g, const float *input, const float *packed_filter,
                            const float *bias, float *output) {
    const int64_t out_pixels = (int64_t)g->batch * g->in_h * g->in_w;
    memset(output, 0, (size_t)out_pixels * (size_t)g->in_c * sizeof(float));
    const int32_t ic = g->out_c, oc = g->in_c;
    for (int32_t b = 0; b < g->batch; ++b)
        for (int32_t y = 0; y < g->out_h; ++y)
            for (int32_t x = 0; x < g->out_w; ++x) {
                const float *in = input + (((int64_t)b * g->out_h + y) * g->out_w + x) * ic;
                for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                    const int32_t oy = y * g->stride_h - g->pad_h + fy;
                    if (oy < 0 || oy >= g->in_h) continue;
                    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                        const int32_t ox = x * g->stride_w - g->pad_w + fx;
                        if (ox < 0 || ox >= g->in_w) continue;
                        float *restrict out = output + (((int64_t)b * g->in_h + oy) * g->in_w + ox) * oc;
                        const float *w = packed_filter + ((int64_t)fy * g->filter_w + fx) * ic * oc;
                        for (int32_t i = 0; i < ic; ++i) {
                            const float v = in[i];
                            const float *restrict row = w + (int64_t)i * oc;
                            for (int32_t o = 0; o < oc; ++o) out[o] += v * row[o];
                        }
                    }
                }
            }
    for (int64_t p = 0; p < out_pixels; ++p) {
        float *out = output + p * oc;
        for (int32_t o = 0; o < oc; ++o) {
            float v = out[o] + (bias ? bias[o] : 0.0f);
            v = v < g->act_min ? g->act_min : v;
            out[o] = v > g->act_max ? g->act_max : v;
        }
    }
}
