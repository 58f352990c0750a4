/* f32_pack.c — packs float32 GEMM and depthwise weights into the panel layouts of gemm.h and dwconv.h.
 *
 * Runs once at prepare. Every byte of the packed size is written (zeros past n / channels), so kernels
 * may load whole panels and padded columns hold defined values. */
#include <string.h>

#include "dwconv.h"
#include "gemm.h"

static size_t round_up(size_t n, size_t tile) { return (n + tile - 1) / tile * tile; }

size_t rl_f32_gemm_panel_width(size_t n, size_t n0, size_t nr) {
    const size_t left = n - n0;
    if (left >= nr || nr < 16) return nr;
    return left <= 8 ? 8 : nr == 32 && left <= 16 ? 16 : nr;
}

size_t rl_f32_gemm_packed_size(size_t n, size_t ks, size_t kc, size_t nr) {
    const size_t whole = n / nr * nr;
    return (whole + (whole < n ? rl_f32_gemm_panel_width(n, whole, nr) : 0)) * (1 + ks * kc) * sizeof(float);
}

void rl_pack_f32_gemm(size_t n, size_t ks, size_t kc, size_t nr, const float *w, const float *bias, float *packed) {
    const size_t depth = ks * kc; /* [n][ks][kc] flattens to [n][depth] in the tap-major order kernels read */
    for (size_t n0 = 0; n0 < n; n0 += nr) {
        const size_t cols = n - n0 < nr ? n - n0 : nr, width = rl_f32_gemm_panel_width(n, n0, nr);
        /* Zeros only where a full panel with a bias leaves nothing unwritten: the packed weights are fresh
         * pages, and writing them twice was a tenth of preparing MobileNet. */
        if (cols < width || bias == NULL) memset(packed, 0, width * (1 + depth) * sizeof(float));
        if (bias != NULL)
            for (size_t j = 0; j < cols; ++j) packed[j] = bias[n0 + j];
        /* Row of the panel by row: the writes are contiguous and the cols filter rows are read as parallel
         * streams, which the prefetchers follow (column by column, each write touched a new cache line). */
        const float *first = w + n0 * depth;
        float *out = packed + width;
        if (cols == nr) {
            for (size_t k = 0; k < depth; ++k, out += nr)
                for (size_t j = 0; j < nr; ++j) out[j] = first[j * depth + k];
        } else {
            for (size_t k = 0; k < depth; ++k, out += width)
                for (size_t j = 0; j < cols; ++j) out[j] = first[j * depth + k];
        }
        packed += width * (1 + depth);
    }
}

size_t rl_f32_dwconv_packed_size(size_t channels, size_t taps, size_t ct) {
    return round_up(channels, ct) * (1 + taps) * sizeof(float);
}

void rl_pack_f32_dwconv(size_t channels, size_t filter_h, size_t filter_w, size_t ct, const float *w, const float *bias,
                        float *packed) {
    const size_t taps = filter_h * filter_w;
    for (size_t c0 = 0; c0 < channels; c0 += ct) {
        const size_t count = channels - c0 < ct ? channels - c0 : ct;
        memset(packed, 0, ct * (1 + taps) * sizeof(float));
        if (bias != NULL) memcpy(packed, bias + c0, count * sizeof(float));
        for (size_t fx = 0; fx < filter_w; ++fx)
            for (size_t fy = 0; fy < filter_h; ++fy)
                memcpy(packed + ct * (1 + fx * filter_h + fy), w + (fy * filter_w + fx) * channels + c0,
                       count * sizeof(float));
        packed += ct * (1 + taps);
    }
}
