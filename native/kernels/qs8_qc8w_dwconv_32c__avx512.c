/* qs8_qc8w_dwconv_32c__avx512.c — int8 depthwise convolution, per-channel int8 weights, any number of taps, 32
 * channels per step, AVX-512 (F, BW, VL).
 *
 * As the AVX2 kernel: taps go in pairs, interleaved byte by byte and sign-extended to int16, so one vpmaddwd
 * gives x[t] * w[t] + x[t+1] * w[t+1] per channel, exact, with wrapping int32 adds; an odd last tap pairs with
 * zeros. The byte unpacks work per 128-bit lane, so one accumulator holds channels 0-7 and 16-23, the other 8-15
 * and 24-31; biases and scales are shuffled into that order and the output back. A last tile of fewer than 32
 * channels uses masked loads and stores, which neither read nor write the masked-out bytes: its inputs, and its
 * weights, read where the model holds them (dwconv.h). Four pixels go through a tile together, sharing each weight
 * load and extension.
 */
#include <immintrin.h>

#include "qs8_configs.h"

enum { CT = 32 };

/* acc += x0 * w0 + x1 * w1 per channel; vw_a/vw_b hold the two taps' weights interleaved and sign-extended. */
static void accumulate(__m512i *vacc_a, __m512i *vacc_b, __m256i vx0, __m256i vx1, __m512i vw_a, __m512i vw_b) {
    *vacc_a = _mm512_add_epi32(*vacc_a, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(vx0, vx1)), vw_a));
    *vacc_b = _mm512_add_epi32(*vacc_b, _mm512_madd_epi16(_mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(vx0, vx1)), vw_b));
}

/* The vmask channels of taps t and t + 1 (or t alone, paired with zeros, when w1 is NULL), interleaved and
 * extended. */
static void load_weights(const int8_t *w0, const int8_t *w1, __mmask32 vmask, __m512i *vw_a, __m512i *vw_b) {
    const __m256i v0 = _mm256_maskz_loadu_epi8(vmask, w0);
    const __m256i v1 = w1 ? _mm256_maskz_loadu_epi8(vmask, w1) : _mm256_setzero_si256();
    *vw_a = _mm512_cvtepi8_epi16(_mm256_unpacklo_epi8(v0, v1));
    *vw_b = _mm512_cvtepi8_epi16(_mm256_unpackhi_epi8(v0, v1));
}

static void requantize_store(int8_t *out, __mmask32 vmask, __m512i vacc_a, __m512i vacc_b, __m512 vscale_a,
                             __m512 vscale_b, const rl_qs8_requantization_params *params) {
    const __m512 vmin = _mm512_set1_ps(params->min_less_zero_point);
    const __m512 vmax = _mm512_set1_ps(params->max_less_zero_point);
    const __m512i vzero_point = _mm512_set1_epi32(params->output_zero_point);
    const __m512 vf_a = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(vacc_a), vscale_a), vmin), vmax);
    const __m512 vf_b = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(vacc_b), vscale_b), vmin), vmax);
    /* In [-128, 127] already: the saturating narrowing is exact. */
    const __m128i vq_a = _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(vf_a), vzero_point));
    const __m128i vq_b = _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(vf_b), vzero_point));
    const __m256i vout = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(vq_a, vq_b)),
                                                 _mm_unpackhi_epi64(vq_a, vq_b), 1);
    _mm256_mask_storeu_epi8(out, vmask, vout);
}

void qs8_qc8w_dwconv_32c__avx512(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                                 size_t indirection_step, const int8_t *const *weights, const void *packed,
                                 int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params) {
    enum { PIXELS = 4 }; /* per pass over a tile, sharing each weight load and extension */
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    const __m256i vzero = _mm256_setzero_si256();
    for (size_t px = 0; px < pixels; px += PIXELS) {
        const size_t block = pixels - px < PIXELS ? pixels - px : PIXELS;
        /* A short last block repeats its last pixel (same inputs, same output bytes written again). */
        const int8_t *const *in0 = indirection + px * indirection_step;
        const int8_t *const *in1 = block > 1 ? in0 + indirection_step : in0;
        const int8_t *const *in2 = block > 2 ? in1 + indirection_step : in1;
        const int8_t *const *in3 = block > 3 ? in2 + indirection_step : in2;
        int8_t *out0 = output + px * output_stride;
        int8_t *out1 = block > 1 ? out0 + output_stride : out0;
        int8_t *out2 = block > 2 ? out1 + output_stride : out1;
        int8_t *out3 = block > 3 ? out2 + output_stride : out2;
        const unsigned char *tile = packed;
        for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            const __mmask32 vmask = (__mmask32)(count == CT ? UINT32_MAX : (UINT32_C(1) << count) - 1);
            const __m512i vbias0 = _mm512_loadu_si512((const void *)tile);
            const __m512i vbias1 = _mm512_loadu_si512((const void *)(tile + 64));
            const __m512i vbias_a = _mm512_shuffle_i64x2(vbias0, vbias1, 0x44); /* channels 0-7, 16-23 */
            const __m512i vbias_b = _mm512_shuffle_i64x2(vbias0, vbias1, 0xEE); /* channels 8-15, 24-31 */
            __m512i vacc0_a = vbias_a, vacc0_b = vbias_b, vacc1_a = vbias_a, vacc1_b = vbias_b;
            __m512i vacc2_a = vbias_a, vacc2_b = vbias_b, vacc3_a = vbias_a, vacc3_b = vbias_b;
            for (size_t t = 0; t < taps; t += 2) {
                const int pair = t + 1 < taps;
                __m512i vw_a, vw_b;
                load_weights(weights[t] + c0, pair ? weights[t + 1] + c0 : NULL, vmask, &vw_a, &vw_b);
                accumulate(&vacc0_a, &vacc0_b, _mm256_maskz_loadu_epi8(vmask, in0[t] + c0),
                           pair ? _mm256_maskz_loadu_epi8(vmask, in0[t + 1] + c0) : vzero, vw_a, vw_b);
                accumulate(&vacc1_a, &vacc1_b, _mm256_maskz_loadu_epi8(vmask, in1[t] + c0),
                           pair ? _mm256_maskz_loadu_epi8(vmask, in1[t + 1] + c0) : vzero, vw_a, vw_b);
                accumulate(&vacc2_a, &vacc2_b, _mm256_maskz_loadu_epi8(vmask, in2[t] + c0),
                           pair ? _mm256_maskz_loadu_epi8(vmask, in2[t + 1] + c0) : vzero, vw_a, vw_b);
                accumulate(&vacc3_a, &vacc3_b, _mm256_maskz_loadu_epi8(vmask, in3[t] + c0),
                           pair ? _mm256_maskz_loadu_epi8(vmask, in3[t + 1] + c0) : vzero, vw_a, vw_b);
            }
            const float *scale = (const float *)(const void *)(tile + CT * sizeof(int32_t));
            const __m512 vscale0 = _mm512_loadu_ps(scale), vscale1 = _mm512_loadu_ps(scale + 16);
            const __m512 vscale_a = _mm512_shuffle_f32x4(vscale0, vscale1, 0x44);
            const __m512 vscale_b = _mm512_shuffle_f32x4(vscale0, vscale1, 0xEE);
            requantize_store(out0 + c0, vmask, vacc0_a, vacc0_b, vscale_a, vscale_b, params);
            requantize_store(out1 + c0, vmask, vacc1_a, vacc1_b, vscale_a, vscale_b, params);
            requantize_store(out2 + c0, vmask, vacc2_a, vacc2_b, vscale_a, vscale_b, params);
            requantize_store(out3 + c0, vmask, vacc3_a, vacc3_b, vscale_a, vscale_b, params);
        }
    }
}
