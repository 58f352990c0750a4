/* f32_dwconv__avx512.c — float32 depthwise convolution, any taps, 32-channel tiles, AVX-512F.
 *
 * Each channel's sum runs bias first, then taps in order (FMA per tap), as the scalar kernel. Full tiles
 * load whole vectors, two tiles at a time where they exist (four FMA chains in flight); the last partial
 * tile reads its inputs and writes its outputs under a lane mask, whose masked-off lanes neither fault nor
 * touch memory, so nothing is read or written past `channels`. Its weights are padded to the tile in the
 * packing and are loaded whole. */
#include <immintrin.h>

#include "f32_microkernels.h"

enum { CT = 32 };

void f32_dwconv__avx512(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                        size_t indirection_step, const float *w, float *output, size_t output_stride,
                        const rl_f32_minmax_params *params) {
    const __m512 vmin = _mm512_set1_ps(params->min);
    const __m512 vmax = _mm512_set1_ps(params->max);
    const size_t tile_floats = CT * (1 + taps);
    const size_t rest = channels % CT;
    const __mmask16 mask_lo = (__mmask16)(rest >= 16 ? 0xFFFFu : (1u << rest) - 1u);
    const __mmask16 mask_hi = (__mmask16)(rest > 16 ? (1u << (rest - 16)) - 1u : 0u);

    for (size_t p = 0; p < pixels; ++p) {
        const float *const *in = indirection + p * indirection_step;
        float *out = output + p * output_stride;
        const float *tile = w;
        size_t c0 = 0;
        for (; c0 + 2 * CT <= channels; c0 += 2 * CT) {
            const float *wa = tile, *wb = tile + tile_floats;
            __m512 acc0 = _mm512_loadu_ps(wa), acc1 = _mm512_loadu_ps(wa + 16);
            __m512 acc2 = _mm512_loadu_ps(wb), acc3 = _mm512_loadu_ps(wb + 16);
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                wa += CT;
                wb += CT;
                acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(x), _mm512_loadu_ps(wa), acc0);
                acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), _mm512_loadu_ps(wa + 16), acc1);
                acc2 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 32), _mm512_loadu_ps(wb), acc2);
                acc3 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 48), _mm512_loadu_ps(wb + 16), acc3);
            }
            _mm512_storeu_ps(out + c0, _mm512_min_ps(_mm512_max_ps(acc0, vmin), vmax));
            _mm512_storeu_ps(out + c0 + 16, _mm512_min_ps(_mm512_max_ps(acc1, vmin), vmax));
            _mm512_storeu_ps(out + c0 + 32, _mm512_min_ps(_mm512_max_ps(acc2, vmin), vmax));
            _mm512_storeu_ps(out + c0 + 48, _mm512_min_ps(_mm512_max_ps(acc3, vmin), vmax));
            tile += 2 * tile_floats;
        }
        for (; c0 + CT <= channels; c0 += CT) {
            const float *wt = tile;
            __m512 acc0 = _mm512_loadu_ps(wt), acc1 = _mm512_loadu_ps(wt + 16);
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                wt += CT;
                acc0 = _mm512_fmadd_ps(_mm512_loadu_ps(x), _mm512_loadu_ps(wt), acc0);
                acc1 = _mm512_fmadd_ps(_mm512_loadu_ps(x + 16), _mm512_loadu_ps(wt + 16), acc1);
            }
            _mm512_storeu_ps(out + c0, _mm512_min_ps(_mm512_max_ps(acc0, vmin), vmax));
            _mm512_storeu_ps(out + c0 + 16, _mm512_min_ps(_mm512_max_ps(acc1, vmin), vmax));
            tile += tile_floats;
        }
        if (rest != 0) {
            const float *wt = tile;
            __m512 acc0 = _mm512_loadu_ps(wt), acc1 = _mm512_loadu_ps(wt + 16);
            for (size_t t = 0; t < taps; ++t) {
                const float *x = in[t] + c0;
                wt += CT;
                acc0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask_lo, x), _mm512_loadu_ps(wt), acc0);
                acc1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask_hi, x + 16), _mm512_loadu_ps(wt + 16), acc1);
            }
            _mm512_mask_storeu_ps(out + c0, mask_lo, _mm512_min_ps(_mm512_max_ps(acc0, vmin), vmax));
            _mm512_mask_storeu_ps(out + c0 + 16, mask_hi, _mm512_min_ps(_mm512_max_ps(acc1, vmin), vmax));
        }
    }
}
