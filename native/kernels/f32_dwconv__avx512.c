/* f32_dwconv__avx512.c — float32 depthwise convolution, any taps, 32-channel tiles, AVX-512F.
 *
 * Each channel's sum runs bias first, then taps in order (FMA per tap), as the scalar kernel. Loads limit
 * a depthwise kernel (about one per FMA for the inputs alone), so the main loop runs four pixels by one
 * tile, as the AVX2 kernel does: each weight vector is loaded once for four pixels, and eight FMA chains
 * are in flight. One pixel's loop finishes the channels and pixels left over; its last partial tile reads
 * inputs and writes outputs under a lane mask, whose masked-off lanes neither fault nor touch memory, so
 * nothing is read or written past `channels` (the weights are padded to the tile and are loaded whole). */
#include <immintrin.h>

#include "f32_microkernels.h"

enum { CT = 32 };

static __m512 clamp(__m512 v, __m512 vmin, __m512 vmax) { return _mm512_min_ps(_mm512_max_ps(v, vmin), vmax); }

/* Channels c0.. of one pixel; `tile` is c0's packed tile. */
static void dwconv_pixel(size_t c0, const float *tile, size_t channels, size_t taps, const float *const *in,
                         float *out, __m512 vmin, __m512 vmax) {
    const size_t tile_floats = CT * (1 + taps);
    for (; c0 + CT <= channels; c0 += CT) {
        const float *wt = tile;
        __m512 acc0 = _mm512_loadu_ps(wt), acc1 = _mm512_loadu_ps(wt + 16);
        for (size_t t = 0; t < taps; ++t) {
            const float *x = in[t] + c0;
            wt += CT;
            acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(x), _mm512_loadu_ps(wt), acc0);
            acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), _mm512_loadu_ps(wt + 16), acc1);
        }
        _mm512_storeu_ps(out + c0, clamp(acc0, vmin, vmax));
        _mm512_storeu_ps(out + c0 + 16, clamp(acc1, vmin, vmax));
        tile += tile_floats;
    }
    const size_t rest = channels - c0;
    if (rest != 0) {
        const __mmask16 mask_lo = (__mmask16)(rest >= 16 ? 0xFFFFu : (1u << rest) - 1u);
        const __mmask16 mask_hi = (__mmask16)(rest > 16 ? (1u << (rest - 16)) - 1u : 0u);
        const float *wt = tile;
        __m512 acc0 = _mm512_loadu_ps(wt), acc1 = _mm512_loadu_ps(wt + 16);
        for (size_t t = 0; t < taps; ++t) {
            const float *x = in[t] + c0;
            wt += CT;
            acc0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask_lo, x), _mm512_loadu_ps(wt), acc0);
            acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask_hi, x + 16), _mm512_loadu_ps(wt + 16), acc1);
        }
        _mm512_mask_storeu_ps(out + c0, mask_lo, clamp(acc0, vmin, vmax));
        _mm512_mask_storeu_ps(out + c0 + 16, mask_hi, clamp(acc1, vmin, vmax));
    }
}

void f32_dwconv__avx512(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                        size_t indirection_step, const float *w, float *output, size_t output_stride,
                        const rl_f32_minmax_params *params) {
    const __m512 vmin = _mm512_set1_ps(params->min);
    const __m512 vmax = _mm512_set1_ps(params->max);
    const size_t tile_floats = CT * (1 + taps);
    const size_t full = channels / CT * CT; /* channels the four-pixel loop covers */
    size_t p = 0;
    for (; p + 4 <= pixels && full != 0; p += 4) {
        const float *const *in0 = indirection + p * indirection_step;
        const float *const *in1 = in0 + indirection_step;
        const float *const *in2 = in1 + indirection_step;
        const float *const *in3 = in2 + indirection_step;
        float *out0 = output + p * output_stride, *out1 = out0 + output_stride;
        float *out2 = out1 + output_stride, *out3 = out2 + output_stride;
        const float *tile = w;
        for (size_t c0 = 0; c0 < full; c0 += CT) {
            const float *wt = tile;
            __m512 acc00 = _mm512_loadu_ps(wt), acc01 = _mm512_loadu_ps(wt + 16);
            __m512 acc10 = acc00, acc11 = acc01, acc20 = acc00, acc21 = acc01, acc30 = acc00, acc31 = acc01;
            for (size_t t = 0; t < taps; ++t) {
                wt += CT;
                const __m512 w0 = _mm512_loadu_ps(wt), w1 = _mm512_loadu_ps(wt + 16);
                const float *x = in0[t] + c0;
                acc00 = _mm512_fmadd_ps(_mm512_loadu_ps(x), w0, acc00);
                acc01 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), w1, acc01);
                x = in1[t] + c0;
                acc10 = _mm512_fmadd_ps(_mm512_loadu_ps(x), w0, acc10);
                acc11 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), w1, acc11);
                x = in2[t] + c0;
                acc20 = _mm512_fmadd_ps(_mm512_loadu_ps(x), w0, acc20);
                acc21 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), w1, acc21);
                x = in3[t] + c0;
                acc30 = _mm512_fmadd_ps(_mm512_loadu_ps(x), w0, acc30);
                acc31 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), w1, acc31);
            }
            _mm512_storeu_ps(out0 + c0, clamp(acc00, vmin, vmax));
            _mm512_storeu_ps(out0 + c0 + 16, clamp(acc01, vmin, vmax));
            _mm512_storeu_ps(out1 + c0, clamp(acc10, vmin, vmax));
            _mm512_storeu_ps(out1 + c0 + 16, clamp(acc11, vmin, vmax));
            _mm512_storeu_ps(out2 + c0, clamp(acc20, vmin, vmax));
            _mm512_storeu_ps(out2 + c0 + 16, clamp(acc21, vmin, vmax));
            _mm512_storeu_ps(out3 + c0, clamp(acc30, vmin, vmax));
            _mm512_storeu_ps(out3 + c0 + 16, clamp(acc31, vmin, vmax));
            tile += tile_floats;
        }
        dwconv_pixel(full, tile, channels, taps, in0, out0, vmin, vmax);
        dwconv_pixel(full, tile, channels, taps, in1, out1, vmin, vmax);
        dwconv_pixel(full, tile, channels, taps, in2, out2, vmin, vmax);
        dwconv_pixel(full, tile, channels, taps, in3, out3, vmin, vmax);
    }
    for (; p < pixels; ++p)
        dwconv_pixel(0, w, channels, taps, indirection + p * indirection_step, output + p * output_stride, vmin,
                     vmax);
}
