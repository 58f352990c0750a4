/* s8_maxpool2d_ref.c — int8 max pooling, NHWC, over the in-bounds part of each window. */
#include "kernels.h"

void s8_maxpool2d_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int8_t *x, int8_t *y) {
    for (int32_t b = 0; b < g->batch; ++b) {
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
                int8_t *out = y + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                for (int32_t c = 0; c < g->out_c; ++c) {
                    int32_t acc = -128;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                        const int32_t iy = iy0 + fy;
                        if (iy < 0 || iy >= g->in_h) continue;
                        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                            const int32_t ix = ix0 + fx;
                            if (ix < 0 || ix >= g->in_w) continue;
                            const int32_t v = x[(((int64_t)b * g->in_h + iy) * g->in_w + ix) * g->in_c + c];
                            acc = v > acc ? v : acc;
                        }
                    }
                    out[c] = (int8_t)(acc < act_min ? act_min : (acc > act_max ? act_max : acc));
                }
            }
        }
    }
}
