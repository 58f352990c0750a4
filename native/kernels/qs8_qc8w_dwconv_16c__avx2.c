/* qs8_qc8w_dwconv_16c__avx2.c — int8 depthwise convolution, per-channel int8 weights, any number of taps, 16
 * channels per tile, up to 6 pixels per pass, AVX2.
 *
 * Taps go in pairs: vpmovsxbw sign-extends each tap's 16 inputs straight from memory, and vpunpck{l,h}wd
 * interleaves taps t and t+1, so one vpmaddwd gives x[t] * w[t] + x[t+1] * w[t+1] per channel in int32: exact
 * (each product fits int16, the pair fits int32), and the int32 adds wrap like the specification's. An odd last
 * tap pairs with a zero weight. The word unpacks work per 128-bit lane, so one accumulator holds channels 0-3 and
 * 8-11, the other 4-7 and 12-15: biases and scales are permuted into that order once per tile, and vpackssdw of
 * the two puts the outputs back in order for free.
 *
 * The shuffle ports (two on Zen 3, shared by vpmovsx, vpunpck and vector shifts) bound this loop, so none is
 * spent twice: the loops run tile by tile, then pixel by pixel, and a tile's weights are interleaved and
 * extended once per call (one output row) into a stack buffer that every pixel reads as a memory operand, rather
 * than once per pass of pixels. Six pixels per pass keep 12 accumulators in flight (3-5% faster than four); a
 * row's last pixels take one pass with exactly as many. 1.7-2.0x the former kernel (weights extended per pass of
 * four pixels, pixels left over one at a time) on mobilenet_v2's shapes. Filters of more than 2 * MAX_PAIRS taps
 * refill the buffer per pass, chunk by chunk. A last tile of fewer than 16 channels reads and writes only those
 * channels, through qs8_tail__avx2.h's 8/4/2/1-byte pieces, in the same passes of pixels (and so are its
 * weights, read where the model holds them: dwconv.h) (a zero-padded copy on
 * the stack per tap and one pixel at a time made an 8-channel 13x13 layer 15 us, slower than the scalar kernel;
 * cnn_small_int8's depthwise layer ran 6x its float twin). Measured slower here: vpmovsxbd + vpmulld per tap (+30%), byte unpacks before a register vpmovsxbw
 * (+40%), one tap per vpmaddwd against weights zero-padded to even/odd channels (+5%); two tiles by three pixels
 * per pass gains only on rows of 3 pixels (5%).
 *
 * The requantization gives rl_requantize_fp32's bytes (vcvtps2dq rounds to nearest even in the default rounding
 * mode) with fewer operations: only the upper clamp is done in float, where it must be (vcvtps2dq turns values
 * past 2^31 into INT_MIN); the lower one is a vpmaxsb on the final bytes. That is the same: the clamp bounds are
 * integers, so clamping commutes with rounding, and every step after it (saturating packs, saturating add of
 * the zero point) is exact in range and monotonic outside it, so a value below the bound stays below it.
 */
#include <immintrin.h>

#include "qs8_configs.h"
#include "qs8_tail__avx2.h"

enum { CT = 16, PIXELS = 6, MAX_PAIRS = 16 };

typedef struct {
    __m256 scale_lo, scale_hi, max;
    __m128i zero_point, min;
} requantization;

static inline __m128i load_channels(const int8_t *x, size_t count) {
    if (count == CT) return _mm_loadu_si128((const __m128i *)(const void *)x);
    return rl_load_tail_s8(x, count);
}

static inline void store_channels(int8_t *out, __m128i v, size_t count) {
    if (count == CT) {
        _mm_storeu_si128((__m128i *)(void *)out, v);
        return;
    }
    rl_store_tail_s8(out, count, v);
}

/* Two taps' 16 int8 values as int16 pairs (a[c], b[c]): channels 0-3, 8-11 in *lo, 4-7, 12-15 in *hi. */
static inline void interleave(__m256i a, __m256i b, __m256i *lo, __m256i *hi) {
    *lo = _mm256_unpacklo_epi16(a, b);
    *hi = _mm256_unpackhi_epi16(a, b);
}

static inline __m256i extend(const int8_t *x, size_t count) { return _mm256_cvtepi8_epi16(load_channels(x, count)); }

/* Taps t0..t1-1 (t0 even) of the tile's weights (count channels from c0 of each tap's weights, read in place),
 * interleaved in pairs into wbuf (an odd last tap with 0). */
static inline __attribute__((always_inline)) void extend_weights(const int8_t *const *weights, size_t c0,
                                                                 size_t count, size_t t0, size_t t1, __m256i *wbuf) {
    for (size_t t = t0; t < t1; t += 2, wbuf += 2) {
        const __m256i w1 = t + 1 < t1 ? extend(weights[t + 1] + c0, count) : _mm256_setzero_si256();
        interleave(extend(weights[t] + c0, count), w1, &wbuf[0], &wbuf[1]);
    }
}

/* Channels [0-3 8-11] and [4-7 12-15] of 16 int32 or float values: the accumulators' order. */
static inline void to_lane_order(__m256i *lo, __m256i *hi) {
    const __m256i a = *lo, b = *hi;
    *lo = _mm256_permute2x128_si256(a, b, 0x20);
    *hi = _mm256_permute2x128_si256(a, b, 0x31);
}

static inline void requantize_store(int8_t *out, __m256i lo, __m256i hi, const requantization *rq, size_t count) {
    const __m256 f_lo = _mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(lo), rq->scale_lo), rq->max);
    const __m256 f_hi = _mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(hi), rq->scale_hi), rq->max);
    /* Per lane, vpackssdw gives channels 0-7 | 8-15: back in order. */
    const __m256i v16 = _mm256_packs_epi32(_mm256_cvtps_epi32(f_lo), _mm256_cvtps_epi32(f_hi));
    const __m128i v = _mm_adds_epi16(_mm256_castsi256_si128(v16), rq->zero_point);
    const __m128i w = _mm_adds_epi16(_mm256_extracti128_si256(v16, 1), rq->zero_point);
    store_channels(out, _mm_max_epi8(_mm_packs_epi16(v, w), rq->min), count);
}

/* np (a constant once inlined: the accumulators stay in registers) pixels of the tile at channel c0. When the
 * filter has more than 2 * MAX_PAIRS taps, wbuf is refilled from the weights chunk by chunk; otherwise it holds
 * them all. */
static inline void tile_pixels(size_t np, size_t c0, size_t count, size_t taps, const int8_t *const *in,
                               size_t step, const int8_t *const *weights, __m256i *wbuf, __m256i bias_lo, __m256i bias_hi,
                               const requantization *rq, int8_t *out, size_t out_stride) {
    __m256i acc[PIXELS][2];
    for (size_t i = 0; i < np; ++i) acc[i][0] = bias_lo, acc[i][1] = bias_hi;
    for (size_t t0 = 0; t0 < taps; t0 += 2 * MAX_PAIRS) {
        const size_t t1 = taps - t0 > 2 * MAX_PAIRS ? t0 + 2 * MAX_PAIRS : taps;
        if (taps > 2 * MAX_PAIRS) extend_weights(weights, c0, count, t0, t1, wbuf);
        const __m256i *vw = wbuf;
        size_t t = t0;
        for (; t + 1 < t1; t += 2, vw += 2) {
            for (size_t i = 0; i < np; ++i) {
                __m256i x_lo, x_hi;
                interleave(extend(in[i * step + t] + c0, count), extend(in[i * step + t + 1] + c0, count), &x_lo,
                           &x_hi);
                acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(x_lo, vw[0]));
                acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(x_hi, vw[1]));
            }
        }
        if (t < t1) { /* the odd last tap: its partner's weight is 0, so any input will do */
            for (size_t i = 0; i < np; ++i) {
                __m256i x_lo, x_hi;
                const __m256i x = extend(in[i * step + t] + c0, count);
                interleave(x, x, &x_lo, &x_hi);
                acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(x_lo, vw[0]));
                acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(x_hi, vw[1]));
            }
        }
    }
    for (size_t i = 0; i < np; ++i) requantize_store(out + i * out_stride + c0, acc[i][0], acc[i][1], rq, count);
}

/* One output row's pixels of the tile at channel c0, in passes of PIXELS and one pass of exactly the pixels
 * left, with as many accumulators (3x3 outputs have rows of 3 pixels). */
static inline __attribute__((always_inline)) void tile_row(size_t pixels, size_t c0, size_t count, size_t taps,
                                                           const int8_t *const *in, size_t step,
                                                           const int8_t *const *weights,
                                                           __m256i *wbuf, __m256i bias_lo, __m256i bias_hi,
                                                           const requantization *rq, int8_t *out, size_t out_stride) {
    size_t left = pixels;
    for (; left >= PIXELS; left -= PIXELS, in += PIXELS * step, out += PIXELS * out_stride)
        tile_pixels(PIXELS, c0, count, taps, in, step, weights, wbuf, bias_lo, bias_hi, rq, out, out_stride);
    switch (left) {
    case 5: tile_pixels(5, c0, count, taps, in, step, weights, wbuf, bias_lo, bias_hi, rq, out, out_stride); break;
    case 4: tile_pixels(4, c0, count, taps, in, step, weights, wbuf, bias_lo, bias_hi, rq, out, out_stride); break;
    case 3: tile_pixels(3, c0, count, taps, in, step, weights, wbuf, bias_lo, bias_hi, rq, out, out_stride); break;
    case 2: tile_pixels(2, c0, count, taps, in, step, weights, wbuf, bias_lo, bias_hi, rq, out, out_stride); break;
    case 1: tile_pixels(1, c0, count, taps, in, step, weights, wbuf, bias_lo, bias_hi, rq, out, out_stride); break;
    default: break;
    }
}

void qs8_qc8w_dwconv_16c__avx2(size_t channels, size_t pixels, size_t taps, const int8_t *const *indirection,
                               size_t indirection_step, const int8_t *const *weights, const void *packed,
                               int8_t *output, size_t output_stride, const rl_qs8_requantization_params *params) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    __m256i wbuf[2 * MAX_PAIRS];
    requantization rq;
    rq.max = _mm256_set1_ps(params->max_less_zero_point);
    rq.zero_point = _mm_set1_epi16((int16_t)params->output_zero_point);
    rq.min = _mm_set1_epi8((int8_t)((int32_t)params->min_less_zero_point + params->output_zero_point));
    /* Every tap's weights are a stream of their own in the filter, too short in a small layer for the hardware
     * prefetcher to follow (the packed copy was one stream): all their cache lines are asked for up front, a
     * few dozen at most. In MobileNet's profile (best of 8 rounds against the packed kernel) its 336-channel
     * layers of 3x3 pixels went from 1.06-1.07x to 1.03-1.04x with this, the 144-channel ones from 1.02-1.04x to
     * 1.00-1.02x. */
    for (size_t t = 0; t < taps; ++t)
        for (size_t c = 0; c < channels; c += 64) _mm_prefetch((const char *)(weights[t] + c), _MM_HINT_T0);
    const unsigned char *tile = packed;
    for (size_t c0 = 0; c0 < channels; c0 += CT, tile += tile_bytes) {
        const size_t count = channels - c0 < CT ? channels - c0 : CT;
        __m256i bias_lo = _mm256_loadu_si256((const __m256i *)(const void *)tile);
        __m256i bias_hi = _mm256_loadu_si256((const __m256i *)(const void *)(tile + 32));
        to_lane_order(&bias_lo, &bias_hi);
        const float *scale = (const float *)(const void *)(tile + CT * sizeof(int32_t));
        __m256i scale_lo = _mm256_castps_si256(_mm256_loadu_ps(scale));
        __m256i scale_hi = _mm256_castps_si256(_mm256_loadu_ps(scale + 8));
        to_lane_order(&scale_lo, &scale_hi);
        rq.scale_lo = _mm256_castsi256_ps(scale_lo), rq.scale_hi = _mm256_castsi256_ps(scale_hi);
        /* Constants let the compiler drop the tail's pieces: whole tiles, and the 8 channels left by the common
         * multiples of 8 (8, 24, 56), one 8-byte load each. The weights too: with the count a variable, their
         * loads took a branch each, and a row of 3 pixels of 192 channels ran 17% slower. */
        if (taps <= 2 * MAX_PAIRS) {
            if (count == CT) extend_weights(weights, c0, CT, 0, taps, wbuf);
            else if (count == 8) extend_weights(weights, c0, 8, 0, taps, wbuf);
            else extend_weights(weights, c0, count, 0, taps, wbuf);
        }
        if (count == CT)
            tile_row(pixels, c0, CT, taps, indirection, indirection_step, weights, wbuf, bias_lo, bias_hi, &rq,
                     output, output_stride);
        else if (count == 8)
            tile_row(pixels, c0, 8, taps, indirection, indirection_step, weights, wbuf, bias_lo, bias_hi, &rq,
                     output, output_stride);
        else
            tile_row(pixels, c0, count, taps, indirection, indirection_step, weights, wbuf, bias_lo, bias_hi, &rq,
                     output, output_stride);
    }
}
