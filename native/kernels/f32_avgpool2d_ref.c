/* f32_avgpool2d_ref.c — float32 average pooling, NHWC; divides by the in-bounds count, as TFLite. */
#include "kernels.h"

void f32_avgpool2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                       float *output) {
    (void)filter;
    (void)bias;
    for (int32_t b = 0; b < g->batch; ++b) {
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h;
                const int32_t ix0 = ox * g->stride_w - g->pad_w;
                float *out = output + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                for (int32_t c = 0; c < g->out_c; ++c) {
                    float total = 0.0f;
                    int32_t count = 0;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                        const int32_t iy = iy0 + fy;
                        if (iy < 0 || iy >= g->in_h) continue;
                        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                            const int32_t ix = ix0 + fx;
                            if (ix < 0 || ix >= g->in_w) continue;
                            total += input[(((int64_t)b * g->in_h + iy) * g->in_w + ix) * g->in_c + c];
                            ++count;
                        }
                    }
                    float v = count ? total / (float)count : 0.0f;
                    v = v < g->act_min ? g->act_min : v;
                    out[c] = v > g->act_max ? g->act_max : v;
                }
            }
        }
    }
}
