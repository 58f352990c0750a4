/* s8_ibilinear__scalar.c — int8 RESIZE_BILINEAR as XNNPACK computes it (xnn_create_resize_bilinear2d_nhwc_s8 and
 * its s8-ibilinear micro-kernels): weights rounded to 1/2048ths, the row pair blended first, then the rows, in
 * int32 with one rounding shift by 22 at the end (TFLite's kernel instead sums four 1/1024-weighted products and
 * rounds half away from zero, which differs by 1 in a few percent of values). Output quantized as the input.
 * One output row (rl_s8_ibilinear_fn, kernels.h); the specification the SIMD kernels give the bits of.
 */
#include "kernels.h"

void s8_ibilinear__scalar(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                          const rl_ibilinear_tap *cols, int32_t wv, int8_t *y) {
    for (size_t ox = 0; ox < out_w; ++ox) {
        const int32_t wh = cols[ox].alpha_q11;
        const size_t left = (size_t)cols[ox].lower * channels, right = (size_t)cols[ox].upper * channels;
        const int8_t *tl = top + left, *tr = top + right, *bl = bottom + left, *br = bottom + right;
        for (size_t c = 0; c < channels; ++c) {
            /* Multiplications, not shifts, of negative values: the same bits, without C's undefined shift. */
            const int32_t t = tl[c] * 2048 + (tr[c] - tl[c]) * wh;
            const int32_t b = bl[c] * 2048 + (br[c] - bl[c]) * wh;
            const int32_t acc = t * 2048 + (b - t) * wv; /* |acc| < 2^30 */
            y[c] = (int8_t)((acc + (1 << 21)) >> 22); /* arithmetic shift: rounds half up, as XNNPACK's */
        }
        y += channels;
    }
}
