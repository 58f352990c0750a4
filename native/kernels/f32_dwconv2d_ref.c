/* f32_dwconv2d_ref.c — float32 depthwise 2-D convolution, NHWC, filter [1, H, W, C * multiplier].
 *
 * Each output sums its taps in (filter row, filter column) order; the channel loop is innermost so the
 * accumulation runs over contiguous channels (the compiler vectorises it without reordering any sum). */
#include "kernels.h"

void f32_dwconv2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                      float *output) {
    const int32_t m = g->depth_multiplier;
    for (int32_t b = 0; b < g->batch; ++b) {
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h;
                const int32_t ix0 = ox * g->stride_w - g->pad_w;
                float *out = output + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                for (int32_t oc = 0; oc < g->out_c; ++oc) out[oc] = 0.0f;
                for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                    const int32_t iy = iy0 + fy * g->dilation_h;
                    if (iy < 0 || iy >= g->in_h) continue;
                    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                        const int32_t ix = ix0 + fx * g->dilation_w;
                        if (ix < 0 || ix >= g->in_w) continue;
                        const float *in = input + (((int64_t)b * g->in_h + iy) * g->in_w + ix) * g->in_c;
                        const float *w = filter + ((int64_t)fy * g->filter_w + fx) * g->out_c;
                        if (m == 1) {
                            for (int32_t c = 0; c < g->out_c; ++c) out[c] += in[c] * w[c];
                        } else {
                            for (int32_t ic = 0; ic < g->in_c; ++ic)
                                for (int32_t j = 0; j < m; ++j) out[ic * m + j] += in[ic] * w[ic * m + j];
                        }
                    }
                }
                for (int32_t oc = 0; oc < g->out_c; ++oc) {
                    float total = out[oc];
                    if (bias) total += bias[oc];
                    total = total < g->act_min ? g->act_min : total;
                    out[oc] = total > g->act_max ? g->act_max : total;
                }
            }
        }
    }
}
