/* qs8_qc8w_dwconv_32c__avx512.c — int8 depthwise convolution, per-channel int8 weights, any number of taps, 32
 * channels per step, AVX-512 (F, BW, VL).
 *
 * As the AVX2 kernel: taps go in pairs, interleaved byte by byte and sign-extended to int16, so one vpmaddwd
 * gives x[t] * w[t] + x[t+1] * w[t+1] per channel, exact, with wrapping int32 adds; an odd last tap pairs with
 * zeros. The byte unpacks work per 128-bit lane, so one accumulator holds channels 0-7 and 16-23, the other 8-15
 * and 24-31; biases and scales are shuffled into that order and the output back. A last tile of fewer than 32
 * channels uses masked loads and stores, which neither read nor write the masked-out bytes.
 */
#include <immintrin.h>

#include "qs8_configs.h"

enum { CT = 32 };

void qs8_qc8w_dwconv_32c__avx512(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                 size_t indirection_step, const void *w, int8_t *output, size_t output_stride,
                                 const rl_qs8_requantization_params *params) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + taps + sizeof(float));
    const __m512 vmin = _mm512_set1_ps(params->min_less_zero_point);
    const __m512 vmax = _mm512_set1_ps(params->max_less_zero_point);
    const __m512i vzero_point = _mm512_set1_epi32(params->output_zero_point);
    const __m256i vzero = _mm256_setzero_si256();
    for (size_t px = 0; px < pixels; ++px) {
        const int8_t *const *inputs = indirection + px * indirection_step;
        int8_t *out = output + px * output_stride;
        const unsigned char *tile = w;
        for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            const __mmask32 vmask = (__mmask32)(count == CT ? UINT32_MAX : (UINT32_C(1) << count) - 1);
            const int8_t *wt = (const int8_t *)(tile + CT * sizeof(int32_t));
            const __m512i vbias0 = _mm512_loadu_si512((const void *)tile);
            const __m512i vbias1 = _mm512_loadu_si512((const void *)(tile + 64));
            __m512i vacc_a = _mm512_shuffle_i64x2(vbias0, vbias1, 0x44); /* channels 0-7, 16-23 */
            __m512i vacc_b = _mm512_shuffle_i64x2(vbias0, vbias1, 0xEE); /* channels 8-15, 24-31 */
            size_t t = 0;
            for (; t + 2 <= taps; t += 2, wt += 2 * CT) {
                const __m256i vx0 = _mm256_maskz_loadu_epi8(vmask, inputs[t] + c0);
                const __m256i vx1 = _mm256_maskz_loadu_epi8(vmask, inputs[t + 1] + c0);
                const __m256i vw0 = _mm256_loadu_si256((const __m256i *)(const void *)wt);
                const __m256i vw1 = _mm256_loadu_si256((const __m256i *)(const void *)(wt + CT));
                vacc_a = _mm512_add_epi32(vacc_a, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(vx0, vx1)),
                                                                    _mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(vw0, vw1))));
                vacc_b = _mm512_add_epi32(vacc_b, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(vx0, vx1)),
                                                                    _mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(vw0, vw1))));
            }
            if (t < taps) {
                const __m256i vx0 = _mm256_maskz_loadu_epi8(vmask, inputs[t] + c0);
                const __m256i vw0 = _mm256_loadu_si256((const __m256i *)(const void *)wt);
                vacc_a = _mm512_add_epi32(vacc_a, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(vx0, vzero)),
                                                                    _mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(vw0, vzero))));
                vacc_b = _mm512_add_epi32(vacc_b, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(vx0, vzero)),
                                                                    _mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(vw0, vzero))));
                wt += CT;
            }
            const __m512 vscale0 = _mm512_loadu_ps((const void *)wt);
            const __m512 vscale1 = _mm512_loadu_ps((const void *)(wt + 64));
            const __m512 vf_a = _mm512_min_ps(
                _mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(vacc_a), _mm512_shuffle_f32x4(vscale0, vscale1, 0x44)),
                              vmin),
                vmax);
            const __m512 vf_b = _mm512_min_ps(
                _mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(vacc_b), _mm512_shuffle_f32x4(vscale0, vscale1, 0xEE)),
                              vmin),
                vmax);
            /* In [-128, 127] already: the saturating narrowing is exact. */
            const __m128i vq_a = _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(vf_a), vzero_point));
            const __m128i vq_b = _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(vf_b), vzero_point));
            const __m256i vout = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(vq_a, vq_b)),
                                                         _mm_unpackhi_epi64(vq_a, vq_b), 1);
            _mm256_mask_storeu_epi8(out + c0, vmask, vout);
        }
    }
}
