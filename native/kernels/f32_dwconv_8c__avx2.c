/* f32_dwconv_8c__avx2.c — float32 depthwise convolution, any taps, 8-channel tiles, AVX2 + FMA: the kernel
 * for layers of few channels on the AVX2 and AVX-512 paths (dwconv_driver.c: rl_dwconv_wants_small).
 *
 * f32_dwconv__avx2 runs 8-channel layers (MediaPipe's BlazeBlocks) entirely in its one-pixel tail: one FMA
 * chain per pixel, and two vmaskmovps stores per pixel, which Zen 3 runs microcoded; hand_recrop's 1x1 layer on
 * [1, 128, 128, 8] took 16 ns a pixel. Here every tile, the last partial one included, runs four pixels per
 * pass, each weight vector loaded once for the four: four independent FMA chains. A partial tile reads its
 * inputs with vmaskmovps loads (no read past `channels`, no fault in masked-off lanes) and stores through a
 * stack buffer, never a masked store. Each channel's sum is bias first, then taps in order (FMA per tap), as
 * the scalar kernel. */
#include <immintrin.h>
#include <stdint.h>

#include "f32_microkernels.h"

enum { CT = 8, PIXELS = 4 };

/* 8 ones then 8 zeros: loading 8 lanes from &lanes_mask[8 - n] enables the first n lanes (0..8). */
static const int32_t lanes_mask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

static __m256 clamp(__m256 v, __m256 vmin, __m256 vmax) { return _mm256_min_ps(_mm256_max_ps(v, vmin), vmax); }

/* The first `count` (1..7) lanes of v to out. */
static void store_part(float *out, __m256 v, size_t count) {
    float lanes[CT];
    _mm256_storeu_ps(lanes, v);
    for (size_t j = 0; j < count; ++j) out[j] = lanes[j];
}

/* PIXELS pixels, all channels, of which the first `n` are stored; in[i] / out[i] are pixel i's taps and output
 * (a pass of fewer pixels computes the rest on a copy of pixel 0's taps, so every loop keeps a constant count). */
static void dwconv_pass(size_t channels, size_t taps, size_t n, const float *const *in[PIXELS],
                        float *out[PIXELS], const float *w, __m256 vmin, __m256 vmax) {
    const size_t tile_floats = CT * (1 + taps);
    size_t c0 = 0;
    for (; c0 + CT <= channels; c0 += CT, w += tile_floats) {
        const float *wt = w;
        __m256 acc[PIXELS];
        for (size_t i = 0; i < PIXELS; ++i) acc[i] = _mm256_loadu_ps(wt);
        for (size_t t = 0; t < taps; ++t) {
            wt += CT;
            const __m256 vw = _mm256_loadu_ps(wt);
            for (size_t i = 0; i < PIXELS; ++i) acc[i] = _mm256_fmadd_ps(_mm256_loadu_ps(in[i][t] + c0), vw, acc[i]);
        }
        for (size_t i = 0; i < n; ++i) _mm256_storeu_ps(out[i] + c0, clamp(acc[i], vmin, vmax));
    }
    const size_t rest = channels - c0;
    if (rest == 0) return;
    const __m256i mask = _mm256_loadu_si256((const __m256i *)&lanes_mask[CT - rest]);
    const float *wt = w;
    __m256 acc[PIXELS];
    for (size_t i = 0; i < PIXELS; ++i) acc[i] = _mm256_loadu_ps(wt);
    for (size_t t = 0; t < taps; ++t) {
        wt += CT;
        const __m256 vw = _mm256_loadu_ps(wt);
        for (size_t i = 0; i < PIXELS; ++i)
            acc[i] = _mm256_fmadd_ps(_mm256_maskload_ps(in[i][t] + c0, mask), vw, acc[i]);
    }
    for (size_t i = 0; i < n; ++i) store_part(out[i] + c0, clamp(acc[i], vmin, vmax), rest);
}

void f32_dwconv_8c__avx2(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                         size_t indirection_step, const float *w, float *output, size_t output_stride,
                         const rl_f32_minmax_params *params) {
    const __m256 vmin = _mm256_set1_ps(params->min);
    const __m256 vmax = _mm256_set1_ps(params->max);
    const float *const *in[PIXELS];
    float *out[PIXELS];
    size_t p = 0;
    for (; p + PIXELS <= pixels; p += PIXELS) {
        for (size_t i = 0; i < PIXELS; ++i) {
            in[i] = indirection + (p + i) * indirection_step;
            out[i] = output + (p + i) * output_stride;
        }
        dwconv_pass(channels, taps, PIXELS, in, out, w, vmin, vmax);
    }
    if (p == pixels) return;
    const size_t n = pixels - p;
    for (size_t i = 0; i < PIXELS; ++i) { /* pixels past n: pixel p again, computed, not stored */
        const size_t q = p + (i < n ? i : 0);
        in[i] = indirection + q * indirection_step;
        out[i] = output + q * output_stride;
    }
    dwconv_pass(channels, taps, n, in, out, w, vmin, vmax);
}
