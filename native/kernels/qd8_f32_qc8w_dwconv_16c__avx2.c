/* qd8_f32_qc8w_dwconv_16c__avx2.c — hybrid depthwise micro-kernel (qd8_dwconv.h), 16 channels a step, AVX2:
 * each tap's 16 input bytes and weights sign-extended to int16; (x - zero_point), within +-255, times w,
 * within +-128, fits int16 exactly (|product| <= 32640), so vpmullw gives the exact products, each widened
 * to int32 and added per channel (wrapping, as the scalar's). The epilogue multiplies in TFLite's order per
 * channel (both orders computed, blended by channel index) and adds the bias or nothing. A last 8 channels
 * take one 8-channel step; fewer run the scalar kernel's arithmetic one at a time. */
#include <immintrin.h>

#include "qd8_dwconv.h"

static __m256 scaled(__m256i acc, size_t c0, const rl_qd8_dwconv_params *p) {
    const __m256 a = _mm256_cvtepi32_ps(acc), vimage = _mm256_set1_ps(p->image_scale);
    const __m256 vscale = _mm256_loadu_ps(p->scales + c0);
    const __m256 channel_first = _mm256_mul_ps(_mm256_mul_ps(a, vscale), vimage);
    const __m256 image_first = _mm256_mul_ps(_mm256_mul_ps(a, vimage), vscale);
    const __m256i index = _mm256_add_epi32(_mm256_set1_epi32((int32_t)c0), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i first = _mm256_cmpgt_epi32(_mm256_set1_epi32((int32_t)p->scale_first_end), index);
    __m256 y = _mm256_blendv_ps(image_first, channel_first, _mm256_castsi256_ps(first));
    if (p->bias) y = _mm256_add_ps(y, _mm256_loadu_ps(p->bias + c0));
    return _mm256_min_ps(_mm256_max_ps(y, _mm256_set1_ps(p->clamp.min)), _mm256_set1_ps(p->clamp.max));
}

void qd8_f32_qc8w_dwconv_16c__avx2(size_t channels, size_t taps, const int8_t *const *input, const int8_t *weights,
                                   const rl_qd8_dwconv_params *params, float *output) {
    const __m256i vzp = _mm256_set1_epi16((int16_t)params->zero_point);
    size_t c = 0;
    for (; c + 16 <= channels; c += 16) {
        __m256i acc_lo = _mm256_setzero_si256(), acc_hi = _mm256_setzero_si256();
        for (size_t t = 0; t < taps; ++t) {
            const __m256i x = _mm256_sub_epi16(
                _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(input[t] + c))), vzp);
            const __m256i w =
                _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(weights + t * channels + c)));
            const __m256i product = _mm256_mullo_epi16(x, w);
            acc_lo = _mm256_add_epi32(acc_lo, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(product)));
            acc_hi = _mm256_add_epi32(acc_hi, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(product, 1)));
        }
        _mm256_storeu_ps(output + c, scaled(acc_lo, c, params));
        _mm256_storeu_ps(output + c + 8, scaled(acc_hi, c + 8, params));
    }
    if (c + 8 <= channels) { /* 8 more (layers of 8, 24, 40 channels): the same products, one half */
        __m256i acc = _mm256_setzero_si256();
        const __m128i vzp8 = _mm256_castsi256_si128(vzp);
        for (size_t t = 0; t < taps; ++t) {
            const __m128i xb = _mm_loadl_epi64((const __m128i *)(const void *)(input[t] + c));
            const __m128i x = _mm_sub_epi16(_mm_cvtepi8_epi16(xb), vzp8);
            const __m128i w =
                _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(weights + t * channels + c)));
            acc = _mm256_add_epi32(acc, _mm256_cvtepi16_epi32(_mm_mullo_epi16(x, w)));
        }
        _mm256_storeu_ps(output + c, scaled(acc, c, params));
        c += 8;
    }
    /* The last channels (fewer than 8), one at a time: the scalar kernel's arithmetic. */
    for (; c < channels; ++c) {
        uint32_t acc = 0;
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
