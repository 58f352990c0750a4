/* s8_resize_ref.c — int8 RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR, NHWC, as TFLite's builtin kernels compute
 * them (LiteRT's default Interpreter runs both there; see resize_int8.c). Values are moved or interpolated
 * without requantizing: the output carries the input's quantization.
 */
#include <math.h>
#include <string.h>

#include "kernels.h"

/* TFLite's ComputeInterpolationValuesInteger: a source coordinate in 1/1024ths and its two neighbours. */
static void interpolation_values(int32_t value, int32_t scale_10, int32_t half_pixel, int32_t size, int32_t *scaled,
                                 int32_t *lower, int32_t *upper) {
    *scaled = half_pixel ? value * scale_10 + scale_10 / 2 - (1 << 9) : value * scale_10;
    const int32_t lo = *scaled / (1 << 10), hi = (*scaled + (1 << 10) - 1) / (1 << 10);
    *lower = lo > 0 ? lo : 0;
    *upper = hi < size - 1 ? hi : size - 1;
}

static int32_t scale_10(int32_t in, int32_t out, int32_t align_corners) {
    if (align_corners && out > 1) return ((1 << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
    return ((1 << 10) * in + out / 2) / out;
}

/* TFLite's ResizeBilinearInteger: weights in 1/1024ths, the 2^20-scaled sum rounded half away from zero
 * (double-rounding builds, as LiteRT's). */
void s8_resize_bilinear_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                            int32_t align_corners, int32_t half_pixel_centers, const int8_t *x, int8_t *y) {
    const int32_t hs = scale_10(in_h, out_h, align_corners), ws = scale_10(in_w, out_w, align_corners);
    for (int32_t b = 0; b < batch; ++b) {
        const int8_t *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            int32_t sy, y0, y1;
            interpolation_values(oy, hs, half_pixel_centers, in_h, &sy, &y0, &y1);
            const int64_t wy1 = sy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
            for (int32_t ox = 0; ox < out_w; ++ox) {
                int32_t sx, x0, x1;
                interpolation_values(ox, ws, half_pixel_centers, in_w, &sx, &x0, &x1);
                const int64_t wx1 = sx - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
                const int8_t *p00 = img + ((int64_t)y0 * in_w + x0) * channels, *p10 = img + ((int64_t)y1 * in_w + x0) * channels;
                const int8_t *p01 = img + ((int64_t)y0 * in_w + x1) * channels, *p11 = img + ((int64_t)y1 * in_w + x1) * channels;
                for (int32_t c = 0; c < channels; ++c) {
                    const int64_t v = p00[c] * wy0 * wx0 + p10[c] * wy1 * wx0 + p01[c] * wy0 * wx1 + p11[c] * wy1 * wx1;
                    const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
                    y[c] = (int8_t)((v + round) / (1 << 20)); /* C division truncates, as TFLite's */
                }
                y += channels;
            }
        }
    }
}

/* TFLite's GetNearestNeighbor (float scale), which its optimized kernel keeps for align_corners and
 * half_pixel_centers. */
static int32_t nearest_float(int32_t o, int32_t in, int32_t out, int32_t align_corners, int32_t half_pixel) {
    const float scale = (align_corners && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float p = ((float)o + (half_pixel ? 0.5f : 0.0f)) * scale;
    int32_t i = align_corners ? (int32_t)roundf(p) : (int32_t)floorf(p);
    if (i > in - 1) i = in - 1;
    if (half_pixel && i < 0) i = 0;
    return i;
}

/* Otherwise TFLite's optimized 8-bit kernel: a 16.16 fixed-point scale (in << 16) / out + 1, which picks a
 * different source row than the float formula for some sizes (e.g. 2 -> 82). */
static int32_t nearest_index(int32_t o, int32_t in, int32_t out, int32_t align_corners, int32_t half_pixel) {
    if (align_corners || half_pixel) return nearest_float(o, in, out, align_corners, half_pixel);
    const int64_t scale = (((int64_t)in << 16) / out) + 1;
    const int64_t i = ((int64_t)o * scale) >> 16;
    return i < in - 1 ? (int32_t)i : in - 1;
}

void s8_resize_nearest_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                           int32_t align_corners, int32_t half_pixel_centers, const int8_t *x, int8_t *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const int8_t *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            const int32_t iy = nearest_index(oy, in_h, out_h, align_corners, half_pixel_centers);
            for (int32_t ox = 0; ox < out_w; ++ox) {
                const int32_t ix = nearest_index(ox, in_w, out_w, align_corners, half_pixel_centers);
                memcpy(y, img + ((int64_t)iy * in_w + ix) * channels, (size_t)channels);
                y += channels;
            }
        }
    }
}
