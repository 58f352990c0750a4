/* f32_ibilinear__scalar.c — float RESIZE_BILINEAR as XNNPACK computes it (f32-ibilinear): XNNPACK's source
 * coordinates (xx_ibilinear_coordinate.c), each row pair blended as left + (right - left) * alpha, then the two
 * rows the same way; TFLite's kernel sums four weighted products instead, which rounds differently.
 */
#include "kernels.h"

void f32_ibilinear__scalar(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                           const rl_ibilinear_tap *rows, const rl_ibilinear_tap *cols, const float *x, float *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const float *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            const float ay = rows[oy].alpha;
            const float *top_row = img + (int64_t)rows[oy].lower * in_w * channels;
            const float *bottom_row = img + (int64_t)rows[oy].upper * in_w * channels;
            for (int32_t ox = 0; ox < out_w; ++ox) {
                const float ax = cols[ox].alpha;
                const int64_t left = (int64_t)cols[ox].lower * channels, right = (int64_t)cols[ox].upper * channels;
                const float *tl = top_row + left, *tr = top_row + right, *bl = bottom_row + left, *br = bottom_row + right;
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
