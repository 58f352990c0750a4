/* qs8_qc8w_dwconv_8c__avx2.c — int8 depthwise convolution, per-channel int8 weights, any number of taps, 8
 * channels per tile, up to 8 pixels per pass, AVX2: the kernel for layers of few channels on the
 * AVX2 and AVX-512 paths (dwconv_driver.c: rl_dwconv_wants_small).
 *
 * qs8_qc8w_dwconv_16c__avx2 computes a whole 16-channel tile for a layer of 8 (half its lanes idle) and takes
 * a piecewise tail load per tap for 4 or 12: a 3x3 layer of [1, 128, 128, 8] ran 0.164 ms, more than one of
 * 16 channels (0.148 ms), and 2.5-3x LiteRT's XNNPACK on 4 and 12 channels. Here taps go in pairs as there, but
 * the pair is built from bytes: vpunpcklbw of taps t and t+1's 8 inputs gives (x[t][c], x[t+1][c]) for c in
 * order, and one vpmovsxbw extends the 16 bytes to the int16 pairs one vpmaddwd multiplies by the interleaved
 * weights: x[t] * w[t] + x[t+1] * w[t+1] per channel in int32, exact (each product fits int16, the pair int32),
 * the int32 adds wrapping as the specification's. Two shuffles per pair of taps and pixel, and the channels
 * stay in order (no permutes). An odd last tap pairs with a zero weight. A tile's weights are interleaved once
 * per call into a stack buffer, chunk by chunk past 2 * MAX_PAIRS taps, as in the 16-channel kernel.
 *
 * The requantization is the 16-channel kernel's (its comment says why it gives rl_requantize_fp32's bytes).
 * A last tile of fewer than 8 channels reads and writes only those, through qs8_tail__avx2.h's pieces.
 * Eight pixels per pass (one accumulator each) measured 2-3% faster than six on 8- and 12-channel layers. */
#include <immintrin.h>

#include "qs8_configs.h"
#include "qs8_tail__avx2.h"

enum { CT = 8, PIXELS = 8, MAX_PAIRS = 16 };

typedef struct {
    __m256 scale, max;
    __m128i zero_point, min;
} requantization;

static inline __m128i load_channels(const int8_t *x, size_t count) {
    if (count == CT) return _mm_loadl_epi64((const __m128i *)(const void *)x);
    return rl_load_tail_s8(x, count);
}

/* Taps a and b's channels as int16 pairs (a[c], b[c]), c = 0..7 in order. */
static inline __m256i pair(__m128i a, __m128i b) { return _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(a, b)); }

/* Taps t0..t1-1 (t0 even) of the tile's weights, paired into wbuf (an odd last tap with 0). */
static inline __attribute__((always_inline)) void pair_weights(const int8_t *const *weights, size_t c0, size_t count,
                                                               size_t t0, size_t t1, __m256i *wbuf) {
    for (size_t t = t0; t < t1; t += 2, ++wbuf) {
        const __m128i w1 = t + 1 < t1 ? load_channels(weights[t + 1] + c0, count) : _mm_setzero_si128();
        *wbuf = pair(load_channels(weights[t] + c0, count), w1);
    }
}

static inline void requantize_store(int8_t *out, __m256i acc, const requantization *rq, size_t count) {
    const __m256 f = _mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), rq->scale), rq->max);
    const __m256i q = _mm256_cvtps_epi32(f);
    const __m128i v16 = _mm_adds_epi16(_mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1)),
                                       rq->zero_point);
    const __m128i v8 = _mm_max_epi8(_mm_packs_epi16(v16, v16), rq->min);
    if (count == CT) _mm_storel_epi64((__m128i *)(void *)out, v8);
    else rl_store_tail_s8(out, count, v8);
}

/* np (a constant once inlined: the accumulators stay in registers) pixels of the tile at channel c0. */
static inline __attribute__((always_inline)) void tile_pixels(size_t np, size_t c0, size_t count, size_t taps,
                                                              const int8_t *const *in, size_t step,
                                                              const int8_t *const *weights, __m256i *wbuf,
                                                              __m256i bias, const requantization *rq, int8_t *out,
                                                              size_t out_stride) {
    __m256i acc[PIXELS];
    for (size_t i = 0; i < np; ++i) acc[i] = bias;
    for (size_t t0 = 0; t0 < taps; t0 += 2 * MAX_PAIRS) {
        const size_t t1 = taps - t0 > 2 * MAX_PAIRS ? t0 + 2 * MAX_PAIRS : taps;
        if (taps > 2 * MAX_PAIRS) pair_weights(weights, c0, count, t0, t1, wbuf);
        const __m256i *vw = wbuf;
        size_t t = t0;
        for (; t + 1 < t1; t += 2, ++vw)
            for (size_t i = 0; i < np; ++i) {
                const __m256i x = pair(load_channels(in[i * step + t] + c0, count),
                                       load_channels(in[i * step + t + 1] + c0, count));
                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(x, *vw));
            }
        if (t < t1) /* the odd last tap: its partner's weight is 0, so any input will do */
            for (size_t i = 0; i < np; ++i) {
                const __m128i a = load_channels(in[i * step + t] + c0, count);
                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(pair(a, a), *vw));
            }
    }
    for (size_t i = 0; i < np; ++i) requantize_store(out + i * out_stride + c0, acc[i], rq, count);
}

/* The call's pixels of the tile at channel c0, in passes of PIXELS and one pass of exactly the pixels left. */
static inline __attribute__((always_inline)) void tile_row(size_t pixels, size_t c0, size_t count, size_t taps,
                                                           const int8_t *const *in, size_t step,
                                                           const int8_t *const *weights, __m256i *wbuf, __m256i bias,
                                                           const requantization *rq, int8_t *out,
                                                           size_t out_stride) {
    size_t left = pixels;
    for (; left >= PIXELS; left -= PIXELS, in += PIXELS * step, out += PIXELS * out_stride)
        tile_pixels(PIXELS, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride);
    switch (left) {
    case 7: tile_pixels(7, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    case 6: tile_pixels(6, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    case 5: tile_pixels(5, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    case 4: tile_pixels(4, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    case 3: tile_pixels(3, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    case 2: tile_pixels(2, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    case 1: tile_pixels(1, c0, count, taps, in, step, weights, wbuf, bias, rq, out, out_stride); break;
    default: break;
    }
}

void qs8_qc8w_dwconv_8c__avx2(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                              size_t indirection_step, const int8_t *const *weights, const void *packed,
                              int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    __m256i wbuf[MAX_PAIRS];
    requantization rq;
    rq.max = _mm256_set1_ps(params->max_less_zero_point);
    rq.zero_point = _mm_set1_epi16((int16_t)params->output_zero_point);
    rq.min = _mm_set1_epi8((int8_t)((int32_t)params->min_less_zero_point + params->output_zero_point));
    const unsigned char *tile = packed;
    for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
        const size_t count = channels - c0 < CT ? channels - c0 : CT;
        const __m256i bias = _mm256_loadu_si256((const __m256i *)(const void *)tile);
        rq.scale = _mm256_loadu_ps((const float *)(const void *)(tile + CT * sizeof(int32_t)));
        /* Constant counts let the compiler drop the tail's pieces: whole tiles, and the 4 channels left by
         * layers of 4 and 12. */
        if (count == CT) {
            if (taps <= 2 * MAX_PAIRS) pair_weights(weights, c0, CT, 0, taps, wbuf);
            tile_row(pixels, c0, CT, taps, indirection, indirection_step, weights, wbuf, bias, &rq, output,
                     output_stride);
        } else if (count == 4) {
            if (taps <= 2 * MAX_PAIRS) pair_weights(weights, c0, 4, 0, taps, wbuf);
            tile_row(pixels, c0, 4, taps, indirection, indirection_step, weights, wbuf, bias, &rq, output,
                     output_stride);
        } else {
            if (taps <= 2 * MAX_PAIRS) pair_weights(weights, c0, count, 0, taps, wbuf);
            tile_row(pixels, c0, count, taps, indirection, indirection_step, weights, wbuf, bias, &rq, output,
                     output_stride);
        }
    }
}
