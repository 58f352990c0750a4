/* qd8_f32_qc8w_conv2d_ref.c — hybrid (dynamic-range) convolution and depthwise convolution: float NHWC
 * input quantized to int8 on the fly, one scale and zero point per image; int8 filters with one scale per
 * output channel; float bias and output. The scalar reference.
 *
 * What LiteRT 2.3's default Interpreter was measured to do (ops/conv_hybrid.c says when each applies):
 * XNNPACK's qd8 convolution for CONV_2D and TFLite's EvalHybridPerChannel for DEPTHWISE_CONV_2D (XNNPACK
 * does not take it) both quantize each image asymmetrically over H * W * C values (XNNPACK's
 * f32_qd8_quantize_ref; TFLite's f32_qs8_asymmetric_quantize_tflite_ref, which rounds differently),
 * accumulate (x - zero_point) * w in 32 bits, with taps in the padding contributing nothing (padding holds
 * the zero point), and scale back to float in each path's own order of operations (xnnpack_output,
 * tflite_depthwise_output), clamped to the fused activation: the same bits as LiteRT's on x86, which matters
 * because the next hybrid op quantizes this output again, where one bit can move a value to the next step. */
#include <math.h>

#include "kernels.h"

static float clamp_output(float y, const rl_window_geometry *g) {
    y = y < g->act_min ? g->act_min : y;
    return y > g->act_max ? g->act_max : y;
}

/* XNNPACK's qd8 GEMM epilogue: the accumulator times the image's scale, then one fused multiply-add of the
 * filter scale and the bias (its x86 and Arm kernels use FMA). */
static float xnnpack_output(int64_t acc, float image_scale, float filter_scale, const float *bias, int32_t oc,
                            const rl_window_geometry *g) {
    const float scaled = (float)(int32_t)(uint32_t)acc * image_scale; /* wrapping 32-bit accumulator */
    return clamp_output(fmaf(scaled, filter_scale, bias ? bias[oc] : 0.0f), g);
}

/* TFLite's DepthwiseConvHybridGeneral: channels in whole groups of four take its vector path (NEON, or
 * NEON_2_SSE on x86), which multiplies by the channel's scale first; the last out_c % 4 take its scalar loop,
 * which multiplies by the image's scale first. */
static float tflite_depthwise_output(int64_t acc, float image_scale, float filter_scale, const float *bias,
                                     int32_t oc, const rl_window_geometry *g) {
    const float a = (float)(int32_t)(uint32_t)acc;
    float y = oc < g->out_c - g->out_c % 4 ? a * filter_scale * image_scale : a * image_scale * filter_scale;
    if (bias) y += bias[oc];
    return clamp_output(y, g);
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
                    out[oc] = xnnpack_output(acc, scale, filter_scales[oc], bias, oc, g);
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
                    out[oc] = tflite_depthwise_output(acc, scale, filter_scales[oc], bias, oc, g);
                }
            }
        }
    }
}
