/* f32_deconv_bias.h — the loop of a transposed convolution with bias, NHWC (MediaPipe's
 * Convolution2DTransposeBias), in XNNPACK's arithmetic, shared by f32_deconv_bias_ref.c (built for every CPU;
 * fmaf is libm's, correctly rounded) and f32_deconv_bias__avx2.c (built with -mfma: the same fmaf is one
 * instruction), so the two give the same bits. Each output element is its bias plus, over the taps that land on
 * it (output row y * stride - pad + fy) in filter order, the input channels times the filter [out_c, kh, kw,
 * in_c], each product added with a fused multiply-add from the bias up, as XNNPACK's GEMM kernels run it
 * (LiteRT's default Interpreter has only XNNPACK for this op; with multiply-then-add half of selfie
 * segmentation's mask logits were an ulp off, which its final LOGISTIC turned into 1e-6 of the mask). Four
 * outputs of one row and phase (ox, ox + stride, ...: the same taps, the next input pixels) run side by side so
 * their four chains of multiply-adds overlap. The geometry is the convolution transposed: g->in_* the output,
 * g->out_* the input. */
#ifndef RILLET_F32_DECONV_BIAS_H
#define RILLET_F32_DECONV_BIAS_H

#include <math.h>

#include "kernels.h"

void f32_deconv_bias__avx2(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                           float *output);

enum { RL_DECONV_LANES = 4 };

static inline void f32_deconv_bias_loop(const rl_window_geometry *g, const float *input, const float *filter,
                                        const float *bias, float *output) {
    const int32_t oc = g->in_c, ic = g->out_c, sx = g->stride_w;
    for (int32_t b = 0; b < g->batch; ++b)
        for (int32_t oy = 0; oy < g->in_h; ++oy)
            for (int32_t o = 0; o < oc; ++o)
                for (int32_t phase = 0; phase < sx && phase < g->in_w; ++phase)
                    for (int32_t ox = phase; ox < g->in_w; ox += RL_DECONV_LANES * sx) {
                        int32_t lanes = (g->in_w - 1 - ox) / sx + 1;
                        lanes = lanes < RL_DECONV_LANES ? lanes : RL_DECONV_LANES;
                        float acc[RL_DECONV_LANES];
                        for (int32_t j = 0; j < RL_DECONV_LANES; ++j) acc[j] = bias ? bias[o] : 0.0f;
                        for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                            const int32_t ty = oy + g->pad_h - fy; /* y * stride */
                            if (ty < 0 || ty % g->stride_h || ty / g->stride_h >= g->out_h) continue;
                            const float *row = input + ((int64_t)b * g->out_h + ty / g->stride_h) * g->out_w * ic;
                            for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                                /* lane j's input column is ix0 + j, if inside the input */
                                const int32_t tx = ox + g->pad_w - fx;
                                if (tx % sx) continue;
                                const int32_t ix0 = tx / sx; /* exact, also below 0 */
                                const float *w = filter + (((int64_t)o * g->filter_h + fy) * g->filter_w + fx) * ic;
                                if (ix0 >= 0 && ix0 + RL_DECONV_LANES <= g->out_w && lanes == RL_DECONV_LANES) {
                                    const float *in = row + (int64_t)ix0 * ic;
                                    for (int32_t c = 0; c < ic; ++c) {
                                        acc[0] = fmaf(in[c], w[c], acc[0]);
                                        acc[1] = fmaf(in[ic + c], w[c], acc[1]);
                                        acc[2] = fmaf(in[2 * ic + c], w[c], acc[2]);
                                        acc[3] = fmaf(in[3 * ic + c], w[c], acc[3]);
                                    }
                                    continue;
                                }
                                for (int32_t j = 0; j < lanes; ++j) {
                                    if (ix0 + j < 0 || ix0 + j >= g->out_w) continue;
                                    const float *in = row + (int64_t)(ix0 + j) * ic;
                                    for (int32_t c = 0; c < ic; ++c) acc[j] = fmaf(in[c], w[c], acc[j]);
                                }
                            }
                        }
                        float *out = output + (((int64_t)b * g->in_h + oy) * g->in_w + ox) * oc + o;
                        for (int32_t j = 0; j < lanes; ++j) out[(int64_t)j * sx * oc] = acc[j];
                    }
}

#endif
