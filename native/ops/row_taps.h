/* row_taps.h — an IGEMM tap per filter row, for convolutions over few input channels (a first layer: RGB or
 * one channel) with dilation 1 along x, shared by the int8 and float (conv_gemm.c) and hybrid
 * (conv_hybrid_gemm.c) drivers. Everything here counts bytes: a float input passes in_c = 4 x its channels
 * and a zero buffer of 0 bytes (0.0f). A filter row's fw taps lie back to back in an NHWC input row
 * (fw * in_c bytes), and the weights' [n][fh][fw][in_c] order is that of one tap of fw * in_c channels, so
 * the IGEMM runs with ks = fh and kc = fw * in_c, reading each filter row in place. An output column whose
 * filter row straddles the left or right padding (an edge column) has no such run in the input: it reads an
 * edge row, a copy with the zero point in the padding, one per (batch, input row, edge column), rebuilt at
 * every invoke. */
#ifndef RILLET_ROW_TAPS_H
#define RILLET_ROW_TAPS_H

#include "ops.h"

typedef struct {
    size_t left, right, columns; /* edge columns on the left, on the right, and all of them */
} rl_row_tap_edges;

/* The edge columns of g: all of them when the two sides meet. */
rl_row_tap_edges rl_row_tap_edges_of(const rl_window_geometry *g);

/* The bytes the edge rows take (int8 input of in_c channels). */
size_t rl_row_tap_edge_bytes(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t in_c);

/* The edge rows of the int8 NHWC input; image b's padding holds the byte zero[b * zero_stride] (a stride of 0:
 * one zero point for the batch). */
void rl_row_taps_fill_edges(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t in_c,
                            const int8_t *input, const int8_t *zero, size_t zero_stride, int8_t *edge_rows);

/* The indirection buffer for m output pixels in blocks of mr (pixels past m repeat the last), tap-major: each
 * filter row's first byte in the input, its edge row, or image b's zero buffer (zero + b * zero_stride) where
 * the whole row falls in the padding. */
void rl_row_taps_indirection(const rl_window_geometry *g, const rl_row_tap_edges *edges, size_t m, size_t mr,
                             size_t in_c, const int8_t *input, const int8_t *edge_rows, const int8_t *zero,
                             size_t zero_stride, const void **indirection);

#endif
