/* f32_deconv_bias_ref.c — a transposed convolution with bias, NHWC (MediaPipe's Convolution2DTransposeBias):
 * each output element is its bias plus, over the input pixels and taps that land on it (output row
 * y * stride - pad + fy), the input channels times the filter [out_c, kh, kw, in_c]. The geometry is the
 * convolution transposed: g->in_* the output, g->out_* the input. */
#include "kernels.h"

void f32_deconv_bias_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                         float *output) {
    const int32_t oc = g->in_c, ic = g->out_c;
    for (int32_t b = 0; b < g->batch; ++b)
        for (int32_t oy = 0; oy < g->in_h; ++oy)
            for (int32_t ox = 0; ox < g->in_w; ++ox)
                for (int32_t o = 0; o < oc; ++o) {
                    float acc = bias ? bias[o] : 0.0f;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                        const int32_t ty = oy + g->pad_h - fy; /* y * stride */
                        if (ty < 0 || ty % g->stride_h || ty / g->stride_h >= g->out_h) continue;
                        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                            const int32_t tx = ox + g->pad_w - fx;
                            if (tx < 0 || tx % g->stride_w || tx / g->stride_w >= g->out_w) continue;
                            const float *in = input + (((int64_t)b * g->out_h + ty / g->stride_h) * g->out_w +
                                                       tx / g->stride_w) * ic;
                            const float *w = filter + (((int64_t)o * g->filter_h + fy) * g->filter_w + fx) * ic;
                            for (int32_t c = 0; c < ic; ++c) acc += in[c] * w[c];
                        }
                    }
                    output[(((int64_t)b * g->in_h + oy) * g->in_w + ox) * oc + o] = acc;
                }
}
