/* s16_dwconv2d_ref.c — DEPTHWISE_CONV_2D in TFLite's 16x8 mode, a range of output rows: int64 sums of the bias
 * and every tap inside the input (padding adds nothing: the input's zero point is 0), then TFLite's
 * MultiplyByQuantizedMultiplier for int64 (REDUCED64, qs16_gemm.h), as LiteRT's reference
 * DepthwiseConvPerChannel, which its default Interpreter runs for int16 (measured against LiteRT 2.3).
 * Per output pixel, blocks of BLOCK channels are summed tap by tap (the sums are exact, so the order is free):
 * with depth multiplier 1 the inner loop runs over contiguous channels, which the compiler vectorizes. */
#include "kernels.h"

enum { BLOCK = 64 };

void s16_dwconv2d_rows_ref(const rl_window_geometry *g, const rl_qs16_requantization_params *params,
                           const rl_qs16_channel *channels, const int16_t *input, const int8_t *filter,
                           const int64_t *bias, int16_t *output, size_t first_row, size_t rows) {
    const size_t in_c = (size_t)g->in_c, out_c = (size_t)g->out_c, dm = (size_t)g->depth_multiplier;
    int64_t sums[BLOCK];
    for (size_t row = first_row; row < first_row + rows; ++row) {
        const size_t b = row / (size_t)g->out_h;
        const int32_t oy = (int32_t)(row % (size_t)g->out_h);
        for (int32_t ox = 0; ox < g->out_w; ++ox) {
            int16_t *out = output + (row * (size_t)g->out_w + (size_t)ox) * out_c;
            for (size_t c0 = 0; c0 < out_c; c0 += BLOCK) {
                const size_t count = out_c - c0 < BLOCK ? out_c - c0 : BLOCK;
                for (size_t c = 0; c < count; ++c) sums[c] = bias ? bias[c0 + c] : 0;
                for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                    const int32_t iy = oy * g->stride_h - g->pad_h + fy * g->dilation_h;
                    if (iy < 0 || iy >= g->in_h) continue;
                    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                        const int32_t ix = ox * g->stride_w - g->pad_w + fx * g->dilation_w;
                        if (ix < 0 || ix >= g->in_w) continue;
                        const int16_t *x = input + ((b * (size_t)g->in_h + (size_t)iy) * (size_t)g->in_w + (size_t)ix) *
                                                       in_c;
                        const int8_t *w = filter + ((size_t)fy * (size_t)g->filter_w + (size_t)fx) * out_c + c0;
                        if (dm == 1) {
                            for (size_t c = 0; c < count; ++c) sums[c] += (int32_t)x[c0 + c] * w[c];
                        } else {
                            for (size_t c = 0; c < count; ++c) sums[c] += (int32_t)x[(c0 + c) / dm] * w[c];
                        }
                    }
                }
                for (size_t c = 0; c < count; ++c) out[c0 + c] = rl_qs16_requantize(sums[c], &channels[c0 + c], params);
            }
        }
    }
}
