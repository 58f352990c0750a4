/* f32_resize_nearest_ref.c — nearest-neighbour resize, NHWC, TFLite's coordinate conventions
 * (works for any 4-byte element). */
#include <math.h>
#include <string.h>

#include "kernels.h"

static int32_t nearest(int32_t o, int32_t in, int32_t out, int32_t align_corners, int32_t half_pixel) {
    const float scale =
        (align_corners && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float offset = half_pixel ? 0.5f : 0.0f;
    const float p = ((float)o + offset) * scale;
    int32_t i = align_corners ? (int32_t)roundf(p) : (int32_t)floorf(p);
    if (i > in - 1) i = in - 1;
    if (half_pixel && i < 0) i = 0;
    return i;
}

void f32_resize_nearest_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h,
                            int32_t out_w, int32_t align_corners, int32_t half_pixel_centers, const float *x,
                            float *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const float *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            const int32_t iy = nearest(oy, in_h, out_h, align_corners, half_pixel_centers);
            for (int32_t ox = 0; ox < out_w; ++ox) {
                const int32_t ix = nearest(ox, in_w, out_w, align_corners, half_pixel_centers);
                memcpy(y, img + ((int64_t)iy * in_w + ix) * channels, (size_t)channels * sizeof(float));
                y += channels;
            }
        }
    }
}
