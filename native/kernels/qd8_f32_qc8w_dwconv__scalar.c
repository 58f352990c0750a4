/* qd8_f32_qc8w_dwconv__scalar.c — hybrid depthwise micro-kernel, one channel at a time: the specification
 * (qd8_dwconv.h) every other one reproduces bit for bit, and the path dispatch picks (rl_qd8_dwconv_for). */
#include "qd8_dwconv.h"

void qd8_f32_qc8w_dwconv__scalar(size_t channels, size_t taps, const int8_t *const *input, const int8_t *weights,
                                 const rl_qd8_dwconv_params *params, float *output) {
    for (size_t c = 0; c < channels; ++c) {
        uint32_t acc = 0; /* wrapping, as the reference's 32-bit result */
        for (size_t t = 0; t < taps; ++t)
            acc += (uint32_t)(((int32_t)input[t][c] - params->zero_point) * (int32_t)weights[t * channels + c]);
        const float a = (float)(int32_t)acc;
        float y = c < params->scale_first_end ? a * params->scales[c] * params->image_scale
                                              : a * params->image_scale * params->scales[c];
        if (params->bias) y += params->bias[c];
        y = y < params->clamp.min ? params->clamp.min : y;
        output[c] = y > params->clamp.max ? params->clamp.max : y;
    }
}

rl_qd8_dwconv_fn rl_qd8_dwconv_for(rl_isa isa) {
#if defined(__x86_64__) || defined(_M_X64)
    if (isa == RL_ISA_AVX2 || isa == RL_ISA_AVX512 || isa == RL_ISA_AVX512VNNI) return qd8_f32_qc8w_dwconv_16c__avx2;
#endif
    (void)isa;
    return qd8_f32_qc8w_dwconv__scalar;
}
