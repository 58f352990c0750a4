/* conv_hybrid_quantize.h — the hybrid convolutions' per-image input quantization split across the plan's
 * threads: an image is cut into parts, every part's range is found in parallel, the image's quantization comes
 * from the parts' ranges (a min and a max: exact in any order, so the same as one thread's whatever the cut),
 * then every part's values are rounded in parallel. A mobilenet_v2 image is up to 221,184 values; on one
 * thread its quantization was the serial part of every depthwise layer (qd8_gemm.h has the three steps). */
#ifndef RILLET_CONV_HYBRID_QUANTIZE_H
#define RILLET_CONV_HYBRID_QUANTIZE_H

#include "ops.h"
#include "qd8_gemm.h"

typedef struct {
    rl_f32_rminmax_fn rminmax;
    rl_f32_quantize_values_fn values;
    rl_f32_qs8_quantization (*of_range)(float lo, float hi);
    size_t images, image_length, part_length, parts_per_image;
    size_t quantizations_offset; /* in the scratch: the parts' ranges, then each image's quantization */
    /* Set at each run. */
    const float *x;
    int8_t *q;
    float *ranges;
    rl_f32_qs8_quantization *quantizations;
} rl_image_quantizer;

/* Sets `qz` up for `images` images of `image_length` floats, XNNPACK's quantization (tflite 0) or TFLite's;
 * returns the scratch bytes rl_quantize_images needs. */
size_t rl_image_quantizer_init(rl_image_quantizer *qz, const rl_qd8_quantize_config *config, int tflite,
                               size_t images, size_t image_length);

/* The first two steps alone: each image's quantization from its parts' ranges (in the scratch, valid until
 * the next call), also written to `out` unless it is NULL; a caller rounds the values where it reads them. */
const rl_f32_qs8_quantization *rl_image_quantizations(const rl_plan *plan, rl_image_quantizer *qz, const float *x,
                                                      void *scratch, rl_qd8_row_quantization *out);

/* Quantizes the images of x into q (images * image_length bytes) and writes each image's zero point and
 * dequantizing scale to `out`; `scratch` holds the bytes rl_image_quantizer_init asked for (64-byte aligned). */
void rl_quantize_images(const rl_plan *plan, rl_image_quantizer *qz, const float *x, int8_t *q, void *scratch,
                        rl_qd8_row_quantization *out);

#endif
