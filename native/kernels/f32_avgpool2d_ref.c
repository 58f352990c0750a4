/* f32_avgpool2d_ref.c — float32 average pooling, NHWC, in XNNPACK's arithmetic (kernels/pool.h): every tap of
 * the window x-major, padding read as 0, nine at a time in XNNPACK's tree, the total times 1.0f / the in-bounds
 * count (padding is not counted, as TFLite). The pool driver's micro-kernels give the same bits. */
#include "kernels.h"
#include "pool.h"

void f32_avgpool2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                       float *output) {
    (void)filter;
    (void)bias;
    const int32_t taps = g->filter_h * g->filter_w;
    for (int32_t b = 0; b < g->batch; ++b) {
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h;
                const int32_t ix0 = ox * g->stride_w - g->pad_w;
                float *out = output + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                int32_t count = 0;
                for (int32_t t = 0; t < taps; ++t) {
                    const int32_t iy = iy0 + t % g->filter_h, ix = ix0 + t / g->filter_h;
                    count += iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
                }
                const float scale = count ? 1.0f / (float)count : 0.0f;
                for (int32_t c = 0; c < g->out_c; ++c) {
                    float total = 0.0f;
                    for (int32_t t = 0; t < taps; t += 9) {
                        float x[9];
                        for (int32_t k = 0; k < 9; ++k) {
                            const int32_t iy = iy0 + (t + k) % g->filter_h, ix = ix0 + (t + k) / g->filter_h;
                            const int in_bounds = t + k < taps && iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w;
                            x[k] = in_bounds ? input[(((int64_t)b * g->in_h + iy) * g->in_w + ix) * g->in_c + c] : 0.0f;
                        }
                        total = total + f32_avgpool_sum9(x);
                    }
                    float v = total * scale;
                    v = v < g->act_min ? g->act_min : v;
                    out[c] = v > g->act_max ? g->act_max : v;
                }
            }
        }
    }
}
