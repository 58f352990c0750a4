/* f32_gemm_packw_goi_x16__avx2.c — w [n][k] into gemm.h's float32 panels of 16 columns (the last of 8 or
 * fewer 8 wide) with zero biases, AVX2: the scalar packer's bits. nr 16, or 32 (AVX-512's wide tile: the last
 * panel of 9-16 columns 16 wide), each panel made 8 columns at a time.
 *
 * A panel is the transpose of 16 rows of w; here 8 rows by 8 k at a time, loaded as 8 vectors and transposed
 * in registers, so each row is read in whole vectors and each packed row written in them (the scalar loop
 * loads and stores every float on its own: about a nanosecond each, a third of a BERT-sized Q·Kᵀ). Rows
 * past n are zero vectors, never loads; the last k % 8 values go one by one. */
#include <immintrin.h>

#include "f32_microkernels.h"
#include "x32_transpose_8x8__avx2.h"

void f32_gemm_packw_goi_x16__avx2(size_t n, size_t k, size_t nr, const float *w, float *packed) {
    for (size_t n0 = 0; n0 < n; n0 += nr) {
        const size_t cols = n - n0 < nr ? n - n0 : nr, width = rl_f32_gemm_panel_width(n, n0, nr);
        for (size_t j = 0; j < width; j += 8) _mm256_storeu_ps(packed + j, _mm256_setzero_ps());
        float *out = packed + width;
        for (size_t half = 0; half < width; half += 8) { /* rows n0 + half .. n0 + half + 7 */
            const float *rows = w + (n0 + half) * k;
            const size_t valid = cols > half ? cols - half : 0; /* of these 8 rows */
            size_t k0 = 0;
            for (; k0 + 8 <= k; k0 += 8) {
                __m256 v[8];
                for (size_t i = 0; i < 8; ++i)
                    v[i] = i < valid ? _mm256_loadu_ps(rows + i * k + k0) : _mm256_setzero_ps();
                transpose_8x8(v);
                for (size_t i = 0; i < 8; ++i) _mm256_storeu_ps(out + (k0 + i) * width + half, v[i]);
            }
            for (; k0 < k; ++k0)
                for (size_t i = 0; i < 8; ++i) out[k0 * width + half + i] = i < valid ? rows[i * k + k0] : 0.0f;
        }
        packed += width * (1 + k);
    }
}
