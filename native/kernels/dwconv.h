/* dwconv.h — depthwise convolution micro-kernels (float32, and int8 with per-channel int8 weights), their
 * packed-weight layout and per-ISA configs. Depth multiplier 1; the op's driver handles the rest.
 *
 * A call computes `pixels` output pixels of one output row, all `channels` channels each. Pixel p reads its
 * `taps` inputs through indirection[p * indirection_step + t] (t in 0..taps-1, in the packed tap order), each a
 * pointer to `channels` input values (the input pixel, or a zero buffer for padding); it writes `channels`
 * values at output + p * output_stride (elements). Every path gives the scalar kernel's result (int8 bit
 * for bit, float32 within 1e-6 relative: bias first, then taps in order). Kernels never read past
 * `channels` values of a pointer.
 */
#ifndef RILLET_DWCONV_H
#define RILLET_DWCONV_H

#include <stddef.h>
#include <stdint.h>

#include "gemm.h"

/* The packers take the filter's taps row-major (filter_h x filter_w, as TFLite stores [1, H, W, C]) and pack
 * them x-major, tap t = fx * filter_h + fy: a pixel's taps are then its filter_w input columns of filter_h
 * pixels each, and pixels stride_w columns apart can share one column list in the indirection buffer
 * (dwconv_driver.c). A flat list of taps packs as filter_h = taps, filter_w = 1, in its own order.
 *
 * float32 packed (rl_pack_f32_dwconv): for each tile of ct channels: ct biases (0 if none / past channels),
 * then for each tap ct weights (0 past channels). A tile is ct * (1 + taps) floats. */
typedef void (*rl_f32_dwconv_fn)(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                                 size_t indirection_step, const float *w, float *output, size_t output_stride,
                                 const rl_f32_minmax_params *params);

/* w: the DEPTHWISE_CONV_2D filter [1, H, W, channels] (taps = H * W); bias: channels floats or NULL. */
size_t rl_f32_dwconv_packed_size(size_t channels, size_t taps, size_t ct);
void rl_pack_f32_dwconv(size_t channels, size_t filter_h, size_t filter_w, size_t ct, const float *w, const float *bias,
                        float *packed);

/* int8: the weights are not copied. A call reads tap t's weights where the model holds them, through
 * weights[t] (in the packed tap order: rl_qs8_dwconv_weight_taps lists a [1, H, W, channels] filter's taps x-major,
 * as the float packer orders them), `channels` int8 values each, of which a kernel reads only those (a filter may
 * end where a mapping does, so a last tile of fewer than ct channels is read exactly, never as a whole tile).
 * A depthwise filter is already channel-fastest and tap-major, what the kernels read; copying it made int8
 * MobileNet's packed weights exceed the model's own. What is packed (rl_pack_qs8_dwconv), for each tile of ct
 * channels: ct int32 biases (bias[c] - input_zero_point * sum over taps of w[t][c], wrapping; 0 past channels),
 * then ct float scales (0 past channels). The zero buffer holds the input zero point. */
typedef void (*rl_qs8_dwconv_fn)(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                 size_t indirection_step, const int8_t *const *weights, const void *packed,
                                 int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params);

size_t rl_qs8_dwconv_packed_size(size_t channels, size_t ct);
/* w: the filter, `taps` rows of `channels` int8 (any tap order: only their sums are packed); bias: channels int32 or
 * NULL; scales: channels floats. */
void rl_pack_qs8_dwconv(size_t channels, size_t taps, size_t ct, int32_t input_zero_point, const int8_t *w,
                        const int32_t *bias, const float *scales, void *packed);
/* weights[t] for t = fx * filter_h + fy: filter + (fy * filter_w + fx) * channels (filter [1, H, W, channels]). */
void rl_qs8_dwconv_weight_taps(size_t channels, size_t filter_h, size_t filter_w, const int8_t *filter,
                               const int8_t **weights);

typedef struct {
    uint32_t channel_tile;
    rl_f32_dwconv_fn dwconv;
} rl_f32_dwconv_config;

typedef struct {
    uint32_t channel_tile;
    rl_qs8_dwconv_fn dwconv;
    /* Optional (NULL where the path has none): the same tile for filters without a weight of -128, whose kernel
     * may sum two taps' products in int16; the driver picks it after looking at the filter. */
    rl_qs8_dwconv_fn dwconv_pairs;
} rl_qs8_dwconv_config;

#endif
