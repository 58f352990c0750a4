/* qd8_f32_qc8w_conv2d_ref.c — hybrid (dynamic-range) convolution and depthwise convolution: float NHWC
 * input quantized to int8 on the fly, one scale and zero point per image; int8 filters with one scale per
 * output channel; float bias and output. The scalar reference.
 *
 * What LiteRT 2.3's default Interpreter was measured to do (ops/conv_hybrid.c says when each applies):
 * XNNPACK's qd8 convolution for CONV_2D and TFLite's EvalHybridPerChannel for DEPTHWISE_CONV_2D (XNNPACK
 * does not take it) both quantize each image asymmetrically over H * W * C values (XNNPACK's
 * f32_qd8_quantize_ref; TFLite's f32_qs8_asymmetric_quantize_tflite_ref, which rounds differently),
 * accumulate (x - zero_point) * w in 32 bits, with taps in the padding contributing nothing (padding holds
 * the zero point), and scale back as acc * image_scale * filter_scale + bias, clamped to the fused
 * activation. Summation order differs from LiteRT's in the last float bits only (within 1e-6 relative). */
#include "kernels.h"

static float hybrid_output(int64_t acc, float image_scale, float filter_scale, const float *bias, int32_t oc,
                           const rl_window_geometry *g) {
    float y = (float)(int32_t)(uint32_t)acc * image_scale * filter_scale; /* wrapping 32-bit accumulator */
    if (bias) y += bias[oc];
    y = y < g->act_min ? g->act_min : y;
    return y > g->act_max ? g->act_max : y;
}

void qd8_f32_qc8w_conv2d_ref(const rl_window_geometry *g, const float *input, const int8_t *filter,
                             const float *filter_scales, const float *bias, int8_t *image_scratch, float *output) {
    const int64_t image = (int64_t)g->in_h * g->in_w * g->in_c;
    for (int32_t b = 0; b < g->batch; ++b) {
        int32_t zp = 0;
        const float scale = f32_qd8_quantize_ref(image, 1, input + b * image, image_scratch, &zp);
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
                float *out = output + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                for (int32_t oc = 0; oc < g->out_c; ++oc) {
                    const int8_t *f = filter + (int64_t)oc * g->filter_h * g->filter_w * g->in_c;
                    int64_t acc = 0;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                        const int32_t iy = iy0 + fy * g->dilation_h;
                        if (iy < 0 || iy >= g->in_h) continue;
                        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                            const int32_t ix = ix0 + fx * g->dilation_w;
                            if (ix < 0 || ix >= g->in_w) continue;
                            const int8_t *in = image_scratch + ((int64_t)iy * g->in_w + ix) * g->in_c;
                            const int8_t *w = f + ((int64_t)fy * g->filter_w + fx) * g->in_c;
                            for (int32_t ic = 0; ic < g->in_c; ++ic) acc += (int32_t)(in[ic] - zp) * w[ic];
                        }
                    }
                    out[oc] = hybrid_output(acc, scale, filter_scales[oc], bias, oc, g);
                }
            }
        }
    }
}

void qd8_f32_qc8w_dwconv2d_ref(const rl_window_geometry *g, const float *input, const int8_t *filter,
                               const float *filter_scales, const float *bias, int8_t *image_scratch, float *output) {
    const int64_t image = (int64_t)g->in_h * g->in_w * g->in_c;
    const int32_t m = g->depth_multiplier;
    for (int32_t b = 0; b < g->batch; ++b) {
        int32_t zp = 0;
        const float scale = f32_qs8_asymmetric_quantize_tflite_ref(image, input + b * image, image_scratch, &zp);
        for (int32_t oy = 0; oy < g->out_h; ++oy) {
            for (int32_t ox = 0; ox < g->out_w; ++ox) {
                const int32_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
                float *out = output + (((int64_t)b * g->out_h + oy) * g->out_w + ox) * g->out_c;
                for (int32_t oc = 0; oc < g->out_c; ++oc) {
                    const int32_t ic = oc / m;
                    int64_t acc = 0;
                    for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                        const int32_t iy = iy0 + fy * g->dilation_h;
                        if (iy < 0 || iy >= g->in_h) continue;
                        for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                            const int32_t ix = ix0 + fx * g->dilation_w;
                            if (ix < 0 || ix >= g->in_w) continue;
                            const int8_t x = image_scratch[((int64_t)iy * g->in_w + ix) * g->in_c + ic];
                            acc += (int32_t)(x - zp) * filter[((int64_t)fy * g->filter_w + fx) * g->out_c + oc];
                        }
                    }
                    out[oc] = hybrid_output(acc, scale, filter_scales[oc], bias, oc, g);
                }
            }
        }
    }
}
