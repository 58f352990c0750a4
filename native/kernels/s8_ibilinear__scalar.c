/* s8_ibilinear__scalar.c — int8 RESIZE_BILINEAR as XNNPACK computes it (xnn_create_resize_bilinear2d_nhwc_s8 and
 * its s8-ibilinear micro-kernels): weights rounded to 1/2048ths, the row pair blended first, then the rows, in
 * int32 with one rounding shift by 22 at the end (TFLite's kernel instead sums four 1/1024-weighted products and
 * rounds half away from zero, which differs by 1 in a few percent of values). Output quantized as the input.
 */
#include <math.h>

#include "kernels.h"

static int32_t weight_q11(float alpha) { return (int32_t)lrintf(alpha * 2048.0f); }

void s8_ibilinear__scalar(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                          int32_t align_corners, int32_t half_pixel_centers, const int8_t *x, int8_t *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const int8_t *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            int32_t y0, y1;
            float ay;
            xx_ibilinear_coordinate(oy, in_h, out_h, align_corners, half_pixel_centers, &y0, &y1, &ay);
            const int32_t wv = weight_q11(ay);
            for (int32_t ox = 0; ox < out_w; ++ox) {
                int32_t x0, x1;
                float ax;
                xx_ibilinear_coordinate(ox, in_w, out_w, align_corners, half_pixel_centers, &x0, &x1, &ax);
                const int32_t wh = weight_q11(ax);
                const int8_t *tl = img + ((int64_t)y0 * in_w + x0) * channels, *tr = img + ((int64_t)y0 * in_w + x1) * channels;
                const int8_t *bl = img + ((int64_t)y1 * in_w + x0) * channels, *br = img + ((int64_t)y1 * in_w + x1) * channels;
                for (int32_t c = 0; c < channels; ++c) {
                    /* Multiplications, not shifts, of negative values: the same bits, without C's undefined shift. */
                    const int32_t top = tl[c] * 2048 + (tr[c] - tl[c]) * wh;
                    const int32_t bottom = bl[c] * 2048 + (br[c] - bl[c]) * wh;
                    const int32_t acc = top * 2048 + (bottom - top) * wv; /* |acc| < 2^30 */
                    y[c] = (int8_t)((acc + (1 << 21)) >> 22); /* arithmetic shift: rounds half up, as XNNPACK's */
                }
                y += channels;
            }
        }
    }
}
