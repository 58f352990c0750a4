/* row_taps.c — see row_taps.h. */
#include <string.h>

#include "row_taps.h"

rl_row_tap_edges rl_row_tap_edges_of(const rl_window_geometry *g) {
    size_t left = 0, right = 0;
    while (left < (size_t)g->out_w && (int32_t)left * g->stride_w - g->pad_w < 0) ++left;
    while (right < (size_t)g->out_w &&
           ((int32_t)g->out_w - 1 - (int32_t)right) * g->stride_w - g->pad_w + g->filter_w > g->in_w)
        ++right;
    if (left + right >= (size_t)g->out_w) left = (size_t)g->out_w, right = 0;
    return (rl_row_tap_edges){.left = left, .right = right, .columns = left + right};
}

size_t rl_row_tap_edge_bytes(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t in_c) {
    return (size_t)g->batch * (size_t)g->in_h * edges->columns * (size_t)g->filter_w * in_c;
}

/* Which edge row output column ox reads. */
static size_t edge_column_of(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t ox) {
    return ox < edges->left ? ox : edges->left + ox - ((size_t)g->out_w - edges->right);
}

void rl_row_taps_fill_edges(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t in_c,
                            const int8_t *input, const int8_t *zero, size_t zero_stride, int8_t *edge_rows) {
    const size_t kc = (size_t)g->filter_w * in_c;
    for (size_t row = 0; row < (size_t)g->batch * (size_t)g->in_h; ++row) {
        const int8_t zero_point = zero[row / (size_t)g->in_h * zero_stride];
        for (size_t e = 0; e < edges->columns; ++e) {
            const size_t ox = e < edges->left ? e : (size_t)g->out_w - edges->right + (e - edges->left);
            const int32_t ix0 = (int32_t)ox * g->stride_w - g->pad_w;
            int8_t *to = edge_rows + (row * edges->columns + e) * kc;
            for (int32_t fx = 0; fx < g->filter_w; ++fx, to += in_c) {
                const int32_t ix = ix0 + fx;
                if (ix < 0 || ix >= g->in_w) memset(to, zero_point, in_c);
                else memcpy(to, input + (row * (size_t)g->in_w + (size_t)ix) * in_c, in_c);
            }
        }
    }
}

void rl_row_taps_indirection(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t m, size_t mr,
                             size_t in_c, const int8_t *input, const int8_t *edge_rows, const int8_t *zero,
                             size_t zero_stride, const void **indirection) {
    const size_t kc = (size_t)g->filter_w * in_c, ks = (size_t)g->filter_h;
    const size_t blocks = (m + mr - 1) / mr;
    /* The pixel's coordinates step along with it (three divisions per pixel were a third of this loop); the
     * slots of a last block past m repeat pixel m - 1. */
    size_t ox = 0, oy = 0, b = 0, pixel = 0;
    for (size_t block = 0; block < blocks; ++block) {
        for (size_t i = 0; i < mr; ++i) {
            if (block * mr + i > 0 && pixel + 1 < m) {
                ++pixel;
                if (++ox == (size_t)g->out_w) {
                    ox = 0;
                    if (++oy == (size_t)g->out_h) oy = 0, ++b;
                }
            }
            const int32_t ix0 = (int32_t)ox * g->stride_w - g->pad_w;
            const int edge = ix0 < 0 || ix0 + g->filter_w > g->in_w;
            for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                const int32_t iy = (int32_t)oy * g->stride_h - g->pad_h + fy * g->dilation_h;
                const void *row = zero + b * zero_stride;
                if (iy >= 0 && iy < g->in_h) {
                    const size_t input_row = b * (size_t)g->in_h + (size_t)iy;
                    row = edge ? edge_rows + (input_row * edges->columns + edge_column_of(g, edges, ox)) * kc
                               : input + (input_row * (size_t)g->in_w + (size_t)ix0) * in_c;
                }
                indirection[(block * ks + (size_t)fy) * mr + i] = row;
            }
        }
    }
}
