/* f32_resize_bilinear_ref.c — float32 bilinear resize, NHWC, with TFLite's align_corners and
 * half_pixel_centers conventions for mapping output to input coordinates. */
#include <math.h>

#include "kernels.h"

static float scale_of(int32_t in, int32_t out, int32_t align_corners) {
    if (align_corners && out > 1) return (float)(in - 1) / (float)(out - 1);
    return (float)in / (float)out;
}

static void source(int32_t o, float scale, int32_t half_pixel, int32_t size, float *pos, int32_t *lo,
                   int32_t *hi) {
    const float p = half_pixel ? ((float)o + 0.5f) * scale - 0.5f : (float)o * scale;
    const float f = floorf(p);
    *pos = p;
    *lo = f > 0.0f ? (int32_t)f : 0;
    const int32_t c = (int32_t)ceilf(p);
    *hi = c < size - 1 ? c : size - 1;
}

void f32_resize_bilinear_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h,
                             int32_t out_w, int32_t align_corners, int32_t half_pixel_centers, const float *x,
                             float *y) {
    const float sy = scale_of(in_h, out_h, align_corners), sx = scale_of(in_w, out_w, align_corners);
    for (int32_t b = 0; b < batch; ++b) {
        const float *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            float py;
            int32_t y0, y1;
            source(oy, sy, half_pixel_centers, in_h, &py, &y0, &y1);
            for (int32_t ox = 0; ox < out_w; ++ox) {
                float px;
                int32_t x0, x1;
                source(ox, sx, half_pixel_centers, in_w, &px, &x0, &x1);
                const float dy = py - (float)y0, dx = px - (float)x0;
                const float *p00 = img + ((int64_t)y0 * in_w + x0) * channels;
                const float *p01 = img + ((int64_t)y0 * in_w + x1) * channels;
                const float *p10 = img + ((int64_t)y1 * in_w + x0) * channels;
                const float *p11 = img + ((int64_t)y1 * in_w + x1) * channels;
                for (int32_t c = 0; c < channels; ++c) {
                    *y++ = p00[c] * (1 - dy) * (1 - dx) + p10[c] * dy * (1 - dx) + p01[c] * (1 - dy) * dx +
                           p11[c] * dy * dx;
                }
            }
        }
    }
}
