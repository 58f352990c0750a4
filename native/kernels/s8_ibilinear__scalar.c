/* s8_ibilinear__scalar.c — int8 RESIZE_BILINEAR as XNNPACK computes it (xnn_create_resize_bilinear2d_nhwc_s8 and
 * its s8-ibilinear micro-kernels): weights rounded to 1/2048ths, the row pair blended first, then the rows, in
 * int32 with one rounding shift by 22 at the end (TFLite's kernel instead sums four 1/1024-weighted products and
 * rounds half away from zero, which differs by 1 in a few percent of values). Output quantized as the input.
 */
#include "kernels.h"

void s8_ibilinear__scalar(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                          const rl_ibilinear_tap *rows, const rl_ibilinear_tap *cols, const int8_t *x, int8_t *y) {
    for (int32_t b = 0; b < batch; ++b) {
        const int8_t *img = x + (int64_t)b * in_h * in_w * channels;
        for (int32_t oy = 0; oy < out_h; ++oy) {
            const int32_t wv = rows[oy].alpha_q11;
            const int8_t *top_row = img + (int64_t)rows[oy].lower * in_w * channels;
            const int8_t *bottom_row = img + (int64_t)rows[oy].upper * in_w * channels;
            for (int32_t ox = 0; ox < out_w; ++ox) {
                const int32_t wh = cols[ox].alpha_q11;
                const int64_t left = (int64_t)cols[ox].lower * channels, right = (int64_t)cols[ox].upper * channels;
                const int8_t *tl = top_row + left, *tr = top_row + right, *bl = bottom_row + left, *br = bottom_row + right;
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
