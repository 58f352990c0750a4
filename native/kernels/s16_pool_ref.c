/* s16_pool_ref.c — int16 MAX_POOL_2D and AVERAGE_POOL_2D over NHWC as TFLite's reference integer kernels (LiteRT
 * runs these for int16): each window clipped to the input, the maximum, or the int32 sum divided by the count
 * of taps inside rounding half away from zero; then the fused activation's clamp. */
#include "s16_elementwise.h"

static void pool(int take_max, const rl_window_geometry *g, int32_t lo, int32_t hi, const int16_t *x, int16_t *y) {
    for (int32_t b = 0; b < g->batch; ++b)
        for (int32_t oy = 0; oy < g->out_h; ++oy)
            for (int32_t ox = 0; ox < g->out_w; ++ox)
                for (int32_t c = 0; c < g->in_c; ++c) {
                    const int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
                    const int32_t fy0 = y0 < 0 ? -y0 : 0, fx0 = x0 < 0 ? -x0 : 0;
                    const int32_t fy1 = g->filter_h < g->in_h - y0 ? g->filter_h : g->in_h - y0;
                    const int32_t fx1 = g->filter_w < g->in_w - x0 ? g->filter_w : g->in_w - x0;
                    int32_t acc = take_max ? INT16_MIN : 0, count = 0;
                    for (int32_t fy = fy0; fy < fy1; ++fy)
                        for (int32_t fx = fx0; fx < fx1; ++fx) {
                            const int32_t v =
                                x[(((int64_t)b * g->in_h + y0 + fy) * g->in_w + x0 + fx) * g->in_c + c];
                            acc = take_max ? (v > acc ? v : acc) : acc + v;
                            ++count;
                        }
                    if (!take_max && count > 0)
                        acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
                    acc = acc < lo ? lo : (acc > hi ? hi : acc);
                    *y++ = (int16_t)acc;
                }
}

void s16_maxpool_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int16_t *x, int16_t *y) {
    pool(1, g, act_min, act_max, x, y);
}

void s16_avgpool_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int16_t *x, int16_t *y) {
    pool(0, g, act_min, act_max, x, y);
}
