/* s16_resize_ref.c — int16 RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over NHWC as LiteRT runs them for int16
 * (TFLite's reference kernels; the values keep the input's quantization):
 * - bilinear: ResizeBilinearInteger, source coordinates and weights in 1/1024ths, the 2^20-scaled sum rounded
 *   half away from zero (as s8_resize_ref.c for int8);
 * - nearest: GetNearestNeighbor with its float scale for every option (the int8 kernel's 16.16 fixed-point scale
 *   is an optimized 8-bit path that int16 does not take). */
#include <math.h>
#include <string.h>

#include "s16_elementwise.h"

static int32_t scale_10(int32_t in, int32_t out, int32_t align_corners) {
    if (align_corners && out > 1) return ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
    return ((1 << 10) * in + out / 2) / out;
}

static void source(int32_t o, int32_t scale, int32_t half_pixel, int32_t size, int32_t *at, int32_t *lo, int32_t *hi) {
    *at = half_pixel ? o * scale + scale / 2 - (1 << 9) : o * scale;
    const int32_t l = *at / (1 << 10), h = (*at + (1 << 10) - 1) / (1 << 10);
    *lo = l > 0 ? l : 0;
    *hi = h < size - 1 ? h : size - 1;
}

void s16_resize_bilinear_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                             int32_t align_corners, int32_t half_pixel_centers, const int16_t *x, int16_t *y) {
    const int32_t hs = scale_10(in_h, out_h, align_corners), ws = scale_10(in_w, out_w, align_corners);
    for (int32_t b = 0; b < batch; ++b) {
        const int16_t *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            int32_t sy, y0, y1;
            source(oy, hs, half_pixel_centers, in_h, &sy, &y0, &y1);
            const int64_t wy1 = sy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
            for (int32_t ox = 0; ox < out_w; ++ox) {
                int32_t sx, x0, x1;
                source(ox, ws, half_pixel_centers, in_w, &sx, &x0, &x1);
                const int64_t wx1 = sx - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
                const int16_t *p00 = img + ((int64_t)y0 * in_w + x0) * channels;
                const int16_t *p10 = img + ((int64_t)y1 * in_w + x0) * channels;
                const int16_t *p01 = img + ((int64_t)y0 * in_w + x1) * channels;
                const int16_t *p11 = img + ((int64_t)y1 * in_w + x1) * channels;
                for (int32_t c = 0; c < channels; ++c) {
                    const int64_t v = p00[c] * wy0 * wx0 + p10[c] * wy1 * wx0 + p01[c] * wy0 * wx1 + p11[c] * wy1 * wx1;
                    const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
                    y[c] = (int16_t)((v + round) / (1 << 20)); /* C division truncates, as TFLite's */
                }
                y += channels;
            }
        }
    }
}

static int32_t nearest(int32_t o, int32_t in, int32_t out, int32_t align_corners, int32_t half_pixel) {
    const float scale = (align_corners && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float p = ((float)o + (half_pixel ? 0.5f : 0.0f)) * scale;
    int32_t i = align_corners ? (int32_t)roundf(p) : (int32_t)floorf(p);
    if (i > in - 1) i = in - 1;
    if (half_pixel && i < 0) i = 0;
    return i;
}

void s16_resize_nearest_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                            int32_t align_corners, int32_t half_pixel_centers, const int16_t *x, int16_t *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const int16_t *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            const int32_t iy = nearest(oy, in_h, out_h, align_corners, half_pixel_centers);
            for (int32_t ox = 0; ox < out_w; ++ox) {
                const int32_t ix = nearest(ox, in_w, out_w, align_corners, half_pixel_centers);
                memcpy(y, img + ((int64_t)iy * in_w + ix) * channels, sizeof(int16_t) * (size_t)channels);
                y += channels;
            }
        }
    }
}
