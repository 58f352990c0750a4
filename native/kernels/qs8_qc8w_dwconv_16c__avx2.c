/* qs8_qc8w_dwconv_16c__avx2.c — int8 depthwise convolution, per-channel int8 weights, any number of taps, 16
 * channels per step, AVX2.
 *
 * Taps go in pairs: the two taps' inputs (and weights) are interleaved byte by byte and sign-extended to int16,
 * so one vpmaddwd gives x[t] * w[t] + x[t+1] * w[t+1] per channel in int32: exact (each product fits int16, the
 * pair fits int32), and the int32 adds wrap like the specification's. An odd last tap pairs with zeros. The
 * requantization is rl_requantize_fp32's, vectorised (vcvtps2dq rounds to nearest even in the default rounding
 * mode). A last tile of fewer than 16 channels reads and writes only those channels.
 */
#include <immintrin.h>
#include <string.h>

#include "qs8_configs.h"

enum { CT = 16 };

static __m128i load_channels(const int8_t *x, size_t count) {
    if (count == CT) return _mm_loadu_si128((const __m128i *)(const void *)x);
    int8_t part[CT] = {0};
    memcpy(part, x, count);
    return _mm_loadu_si128((const __m128i *)(const void *)part);
}

static void store_channels(int8_t *out, __m128i v, size_t count) {
    if (count == CT) {
        _mm_storeu_si128((__m128i *)(void *)out, v);
        return;
    }
    if (count & 8) {
        _mm_storel_epi64((__m128i *)(void *)out, v);
        out += 8, v = _mm_unpackhi_epi64(v, v);
    }
    if (count & 4) {
        const uint32_t part = (uint32_t)_mm_cvtsi128_si32(v);
        memcpy(out, &part, sizeof part);
        out += 4, v = _mm_srli_epi64(v, 32);
    }
    if (count & 2) {
        const uint16_t part = (uint16_t)_mm_cvtsi128_si32(v);
        memcpy(out, &part, sizeof part);
        out += 2, v = _mm_srli_epi64(v, 16);
    }
    if (count & 1) *out = (int8_t)_mm_cvtsi128_si32(v);
}

/* acc += x0 * w0 + x1 * w1 per channel; vw_lo/vw_hi hold the two taps' weights interleaved and sign-extended. */
static void accumulate(__m256i *vacc_lo, __m256i *vacc_hi, __m128i vx0, __m128i vx1, __m256i vw_lo, __m256i vw_hi) {
    *vacc_lo = _mm256_add_epi32(*vacc_lo, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_unpacklo_epi8(vx0, vx1)), vw_lo));
    *vacc_hi = _mm256_add_epi32(*vacc_hi, _mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm_unpackhi_epi8(vx0, vx1)), vw_hi));
}

static void requantize_store(int8_t *out, __m256i vacc_lo, __m256i vacc_hi, const float *scale, size_t count,
                             const rl_qs8_requantization_params *params) {
    const __m256 vmin = _mm256_set1_ps(params->min_less_zero_point);
    const __m256 vmax = _mm256_set1_ps(params->max_less_zero_point);
    const __m256i vzero_point = _mm256_set1_epi32(params->output_zero_point);
    const __m256 vf_lo = _mm256_mul_ps(_mm256_cvtepi32_ps(vacc_lo), _mm256_loadu_ps(scale));
    const __m256 vf_hi = _mm256_mul_ps(_mm256_cvtepi32_ps(vacc_hi), _mm256_loadu_ps(scale + 8));
    const __m256i vq_lo =
        _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(vf_lo, vmin), vmax)), vzero_point);
    const __m256i vq_hi =
        _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(vf_hi, vmin), vmax)), vzero_point);
    /* Values already lie in [-128, 127]: the saturating packs are exact. packs works per 128-bit lane, leaving
     * channels 0-3 8-11 | 4-7 12-15; the permute puts them back in order. */
    const __m256i v16 = _mm256_permute4x64_epi64(_mm256_packs_epi32(vq_lo, vq_hi), 0xD8);
    store_channels(out, _mm_packs_epi16(_mm256_castsi256_si128(v16), _mm256_extracti128_si256(v16, 1)), count);
}

/* The weights of taps t and t + 1 (or t alone, paired with zeros, when w1 is NULL), interleaved and extended. */
static void load_weights(const int8_t *w0, const int8_t *w1, __m256i *vw_lo, __m256i *vw_hi) {
    const __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)w0);
    const __m128i v1 = w1 ? _mm_loadu_si128((const __m128i *)(const void *)w1) : _mm_setzero_si128();
    *vw_lo = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(v0, v1));
    *vw_hi = _mm256_cvtepi8_epi16(_mm_unpackhi_epi8(v0, v1));
}

void qs8_qc8w_dwconv_16c__avx2(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                               size_t indirection_step, const void *w, int8_t *output, size_t output_stride,
                               const rl_qs8_requantization_params *params) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + taps + sizeof(float));
    const __m128i vzero = _mm_setzero_si128();
    size_t px = 0;
    /* Four pixels per pass over a tile share each weight load and extension (the loop is shuffle-bound). */
    for (; px + 4 <= pixels; px += 4) {
        const int8_t *const *in0 = indirection + px * indirection_step;
        const int8_t *const *in1 = in0 + indirection_step;
        const int8_t *const *in2 = in1 + indirection_step;
        const int8_t *const *in3 = in2 + indirection_step;
        int8_t *out = output + px * output_stride;
        const unsigned char *tile = w;
        for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            const int8_t *wt = (const int8_t *)(tile + CT * sizeof(int32_t));
            const __m256i vbias_lo = _mm256_loadu_si256((const __m256i *)(const void *)tile);
            const __m256i vbias_hi = _mm256_loadu_si256((const __m256i *)(const void *)(tile + 32));
            __m256i vacc0_lo = vbias_lo, vacc0_hi = vbias_hi, vacc1_lo = vbias_lo, vacc1_hi = vbias_hi;
            __m256i vacc2_lo = vbias_lo, vacc2_hi = vbias_hi, vacc3_lo = vbias_lo, vacc3_hi = vbias_hi;
            size_t t = 0;
            for (; t < taps; t += 2, wt += 2 * CT) {
                const int pair = t + 1 < taps;
                __m256i vw_lo, vw_hi;
                load_weights(wt, pair ? wt + CT : NULL, &vw_lo, &vw_hi);
                accumulate(&vacc0_lo, &vacc0_hi, load_channels(in0[t] + c0, count),
                           pair ? load_channels(in0[t + 1] + c0, count) : vzero, vw_lo, vw_hi);
                accumulate(&vacc1_lo, &vacc1_hi, load_channels(in1[t] + c0, count),
                           pair ? load_channels(in1[t + 1] + c0, count) : vzero, vw_lo, vw_hi);
                accumulate(&vacc2_lo, &vacc2_hi, load_channels(in2[t] + c0, count),
                           pair ? load_channels(in2[t + 1] + c0, count) : vzero, vw_lo, vw_hi);
                accumulate(&vacc3_lo, &vacc3_hi, load_channels(in3[t] + c0, count),
                           pair ? load_channels(in3[t + 1] + c0, count) : vzero, vw_lo, vw_hi);
            }
            const float *scale = (const float *)(const void *)(tile + CT * sizeof(int32_t) + taps * CT);
            requantize_store(out + c0, vacc0_lo, vacc0_hi, scale, count, params);
            requantize_store(out + output_stride + c0, vacc1_lo, vacc1_hi, scale, count, params);
            requantize_store(out + 2 * output_stride + c0, vacc2_lo, vacc2_hi, scale, count, params);
            requantize_store(out + 3 * output_stride + c0, vacc3_lo, vacc3_hi, scale, count, params);
        }
    }
    for (; px < pixels; ++px) {
        const int8_t *const *in0 = indirection + px * indirection_step;
        int8_t *out = output + px * output_stride;
        const unsigned char *tile = w;
        for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
            const size_t count = channels - c0 < CT ? channels - c0 : CT;
            const int8_t *wt = (const int8_t *)(tile + CT * sizeof(int32_t));
            __m256i vacc0_lo = _mm256_loadu_si256((const __m256i *)(const void *)tile);
            __m256i vacc0_hi = _mm256_loadu_si256((const __m256i *)(const void *)(tile + 32));
            for (size_t t = 0; t < taps; t += 2, wt += 2 * CT) {
                const int pair = t + 1 < taps;
                __m256i vw_lo, vw_hi;
                load_weights(wt, pair ? wt + CT : NULL, &vw_lo, &vw_hi);
                accumulate(&vacc0_lo, &vacc0_hi, load_channels(in0[t] + c0, count),
                           pair ? load_channels(in0[t + 1] + c0, count) : vzero, vw_lo, vw_hi);
            }
            const float *scale = (const float *)(const void *)(tile + CT * sizeof(int32_t) + taps * CT);
            requantize_store(out + c0, vacc0_lo, vacc0_hi, scale, count, params);
        }
    }
}
