/* f32_deconv_bias_ref.c — MediaPipe's Convolution2DTransposeBias in XNNPACK's arithmetic (f32_deconv_bias.h),
 * for every CPU: the specification. */
#include "f32_deconv_bias.h"

void f32_deconv_bias_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                         float *output) {
    f32_deconv_bias_loop(g, input, filter, bias, output);
}
