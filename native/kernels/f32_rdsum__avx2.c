/* f32_rdsum__avx2.c — float32 sum over the middle axis of a [reduced, channels] slice (f32_rdsum__scalar's
 * contract): 32 channels at a time in four ymm accumulators that stay in registers across all the rows, then
 * 8 at a time, the last 1-7 through masked loads and stores. Each output still adds its terms from 0.0f in row
 * order, one rounding per row, as the scalar kernel does, so the same bits. The scalar loop, vectorised by gcc
 * for the baseline ISA, loaded and stored every output at every row: a squeeze-and-excite's MEAN over 7 x 7 x
 * 576 took 4 instructions a term, XNNPACK's rdsum about 1. */
#include <immintrin.h>

#include "kernels.h"

void f32_rdsum__avx2(size_t reduced, size_t channels, size_t row_stride, const float *restrict x,
                     float *restrict y) {
    size_t c = 0;
    for (; c + 32 <= channels; c += 32) {
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(),
               s3 = _mm256_setzero_ps();
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) {
            s0 = _mm256_add_ps(s0, _mm256_loadu_ps(row));
            s1 = _mm256_add_ps(s1, _mm256_loadu_ps(row + 8));
            s2 = _mm256_add_ps(s2, _mm256_loadu_ps(row + 16));
            s3 = _mm256_add_ps(s3, _mm256_loadu_ps(row + 24));
        }
        _mm256_storeu_ps(y + c, s0);
        _mm256_storeu_ps(y + c + 8, s1);
        _mm256_storeu_ps(y + c + 16, s2);
        _mm256_storeu_ps(y + c + 24, s3);
    }
    for (; c + 8 <= channels; c += 8) {
        __m256 s = _mm256_setzero_ps();
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) s = _mm256_add_ps(s, _mm256_loadu_ps(row));
        _mm256_storeu_ps(y + c, s);
    }
    if (c < channels) {
        const size_t rest = channels - c;
        const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rest), lanes);
        __m256 s = _mm256_setzero_ps();
        const float *row = x + c;
        for (size_t r = 0; r < reduced; ++r, row += row_stride) s = _mm256_add_ps(s, _mm256_maskload_ps(row, mask));
        _mm256_maskstore_ps(y + c, mask, s);
    }
}
