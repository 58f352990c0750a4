/* f32_ibilinear__scalar.c — float RESIZE_BILINEAR as XNNPACK computes it (f32-ibilinear): XNNPACK's source
 * coordinates (xx_ibilinear_coordinate.c), each row pair blended as left + (right - left) * alpha, then the two
 * rows the same way; TFLite's kernel sums four weighted products instead, which rounds differently.
 */
#include "kernels.h"

void f32_ibilinear__scalar(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                           int32_t align_corners, int32_t half_pixel_centers, const float *x, float *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const float *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            int32_t y0, y1;
            float ay;
            xx_ibilinear_coordinate(oy, in_h, out_h, align_corners, half_pixel_centers, &y0, &y1, &ay);
            for (int32_t ox = 0; ox < out_w; ++ox) {
                int32_t x0, x1;
                float ax;
                xx_ibilinear_coordinate(ox, in_w, out_w, align_corners, half_pixel_centers, &x0, &x1, &ax);
                const float *tl = img + ((int64_t)y0 * in_w + x0) * channels, *tr = img + ((int64_t)y0 * in_w + x1) * channels;
                const float *bl = img + ((int64_t)y1 * in_w + x0) * channels, *br = img + ((int64_t)y1 * in_w + x1) * channels;
                for (int32_t c = 0; c < channels; ++c) {
                    const float top = tl[c] + (tr[c] - tl[c]) * ax;
                    const float bottom = bl[c] + (br[c] - bl[c]) * ax;
                    y[c] = top + (bottom - top) * ay;
                }
                y += channels;
            }
        }
    }
}
