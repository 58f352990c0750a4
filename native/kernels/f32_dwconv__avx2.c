/* f32_dwconv__avx2.c — float32 depthwise convolution, any taps, 16-channel tiles, AVX2 + FMA.
 *
 * Each channel's sum runs bias first, then taps in order (FMA per tap), as the scalar kernel. Full tiles
 * load whole vectors; the last partial tile reads its inputs with vmaskmovps, which neither faults nor
 * reads memory in masked-off lanes, so no input is read past `channels`. Its weights are padded to the
 * tile in the packing and are loaded whole. */
#include <immintrin.h>
#include <stdint.h>

#include "f32_microkernels.h"

enum { CT = 16 };

/* 8 ones then 8 zeros: loading 8 lanes from &lanes_mask[8 - n] enables the first n lanes (0..8). */
static const int32_t lanes_mask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

void f32_dwconv__avx2(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                      size_t indirection_step, const float *w, float *output, size_t output_stride,
                      const rl_f32_minmax_params *params) {
    const __m256 vmin = _mm256_set1_ps(params->min);
    const __m256 vmax = _mm256_set1_ps(params->max);
    const size_t tile_floats = CT * (1 + taps);
    const size_t rest = channels % CT;
    const __m256i mask_lo = _mm256_loadu_si256((const __m256i *)&lanes_mask[8 - (rest < 8 ? rest : 8)]);
    const __m256i mask_hi = _mm256_loadu_si256((const __m256i *)&lanes_mask[8 - (rest > 8 ? rest - 8 : 0)]);

    for (size_t p = 0; p < pixels; ++p) {
        const float *const *in = indirection + p * indirection_step;
        float *out = output + p * output_stride;
        const float *tile = w;
        size_t c0 = 0;
        /* Two tiles at a time: four independent FMA chains hide more of the FMA latency than two. */
        for (; c0 + 2 * CT <= channels; c0 += 2 * CT) {
            const float *wa = tile, *wb = tile + tile_floats;
            __m256 acc0 = _mm256_loadu_ps(wa), acc1 = _mm256_loadu_ps(wa + 8);
            __m256 acc2 = _mm256_loadu_ps(wb), acc3 = _mm256_loadu_ps(wb + 8);
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                wa += CT;
                wb += CT;
                acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(wa), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 8), _mm256_loadu_ps(wa + 8), acc1);
                acc2 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 16), _mm256_loadu_ps(wb), acc2);
                acc3 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 24), _mm256_loadu_ps(wb + 8), acc3);
            }
            _mm256_storeu_ps(out + c0, _mm256_min_ps(_mm256_max_ps(acc0, vmin), vmax));
            _mm256_storeu_ps(out + c0 + 8, _mm256_min_ps(_mm256_max_ps(acc1, vmin), vmax));
            _mm256_storeu_ps(out + c0 + 16, _mm256_min_ps(_mm256_max_ps(acc2, vmin), vmax));
            _mm256_storeu_ps(out + c0 + 24, _mm256_min_ps(_mm256_max_ps(acc3, vmin), vmax));
            tile += 2 * tile_floats;
        }
        for (; c0 + CT <= channels; c0 += CT) {
            const float *wt = tile;
            __m256 acc0 = _mm256_loadu_ps(wt), acc1 = _mm256_loadu_ps(wt + 8);
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                wt += CT;
                acc0 = _mm256_fmadd_ps(_mm256_loadu_ps(x), _mm256_loadu_ps(wt), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_loadu_ps(x + 8), _mm256_loadu_ps(wt + 8), acc1);
            }
            _mm256_storeu_ps(out + c0, _mm256_min_ps(_mm256_max_ps(acc0, vmin), vmax));
            _mm256_storeu_ps(out + c0 + 8, _mm256_min_ps(_mm256_max_ps(acc1, vmin), vmax));
            tile += tile_floats;
        }
        if (rest != 0) {
            const float *wt = tile;
            __m256 acc0 = _mm256_loadu_ps(wt), acc1 = _mm256_loadu_ps(wt + 8);
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                wt += CT;
                acc0 = _mm256_fmadd_ps(_mm256_maskload_ps(x, mask_lo), _mm256_loadu_ps(wt), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_maskload_ps(x + 8, mask_hi), _mm256_loadu_ps(wt + 8), acc1);
            }
            _mm256_maskstore_ps(out + c0, mask_lo, _mm256_min_ps(_mm256_max_ps(acc0, vmin), vmax));
            _mm256_maskstore_ps(out + c0 + 8, mask_hi, _mm256_min_ps(_mm256_max_ps(acc1, vmin), vmax));
        }
    }
}
