/* s8_dwconv2d_ref.c — int8 depthwise 2-D convolution, NHWC, filter [1, H, W, C * multiplier]: the reference. */
#include "kernels.h"

void s8_dwconv2d_ref(const rl_window_geometry *g, const rl_s8_requantization *rq, const int8_t *input,
                     const int8_t *filter, const int32_t *bias, int8_t *output) {
    const int32_t m = g->depth_multiplier, zp = rq->input_zero_point;
    for (int32_t b = 0; b < g->batch; ++b) {
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h;
                const int32_t ix0 = ox * g->stride_w - g->pad_w;
                int8_t *out = output + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                for (int32_t oc = 0; oc < g->out_c; ++oc) {
                    const int32_t ic = oc / m;
                    int64_t total = bias ? bias[oc] : 0;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                        const int32_t iy = iy0 + fy * g->dilation_h;
                        if (iy < 0 || iy >= g->in_h) continue;
                        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                            const int32_t ix = ix0 + fx * g->dilation_w;
                            if (ix < 0 || ix >= g->in_w) continue;
                            const int8_t x = input[(((int64_t)b * g->in_h + iy) * g->in_w + ix) * g->in_c + ic];
                            total += (int32_t)(x - zp) * filter[((int64_t)fy * g->filter_w + fx) * g->out_c + oc];
                        }
                    }
                    out[oc] = rl_requantize_fp32((int32_t)(uint32_t)total, rq->scale[oc], rq);
                }
            }
        }
    }
}
