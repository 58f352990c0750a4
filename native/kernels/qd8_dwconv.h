/* qd8_dwconv.h — hybrid depthwise micro-kernels (depth multiplier 1): one output pixel's channels from its
 * taps' int8 rows of a quantized image (one zero point and scale for the image), int8 weights with one scale
 * per channel, float32 out, with TFLite's EvalHybridPerChannel arithmetic (what LiteRT's default Interpreter
 * runs; XNNPACK does not take hybrid depthwise):
 *   acc = sum over taps of (x - zero_point) * w        (int32; a padding tap points at the zero point)
 *   y   = (float)acc * scale[c] * image_scale          for c < scale_first_end (its vector path, channels in
 *                                                     whole groups of four)
 *         (float)acc * image_scale * scale[c]          past it (its scalar loop)
 *   y  += bias[c] (nothing without a bias), clamped to [min, max]
 * as qd8_f32_qc8w_dwconv2d_ref's tflite_depthwise_output, bit for bit.
 *
 * input[t] is tap t's row (channels bytes); weights is the model's filter, [taps][channels] (tap t at
 * weights + t * channels: a [1, fh, fw, C] DEPTHWISE_CONV_2D filter read in place). */
#ifndef RILLET_QD8_DWCONV_H
#define RILLET_QD8_DWCONV_H

#include "gemm.h"
#include "isa.h"

typedef struct {
    int32_t zero_point;
    float image_scale;
    size_t scale_first_end;
    const float *scales, *bias; /* bias may be NULL */
    rl_f32_minmax_params clamp;
} rl_qd8_dwconv_params;

typedef void (*rl_qd8_dwconv_fn)(size_t channels, size_t taps, const int8_t *const *input, const int8_t *weights,
                                 const rl_qd8_dwconv_params *params, float *output);

/* AVX2's on every x86 SIMD path, the scalar one elsewhere. */
rl_qd8_dwconv_fn rl_qd8_dwconv_for(rl_isa isa);

void qd8_f32_qc8w_dwconv__scalar(size_t channels, size_t taps, const int8_t *const *input, const int8_t *weights,
                                 const rl_qd8_dwconv_params *params, float *output);
#if defined(__x86_64__) || defined(_M_X64)
void qd8_f32_qc8w_dwconv_16c__avx2(size_t channels, size_t taps, const int8_t *const *input, const int8_t *weights,
                                   const rl_qd8_dwconv_params *params, float *output);
#endif

#endif
