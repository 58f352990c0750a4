/* f32_rdsum__avx2.c — float32 sum over the middle axis of a [reduced, channels] slice (f32_rdsum__scalar's
 * contract), AVX2: f32_rdsum.h's loop on 8-lane vectors, 32 channels at a time in four ymm accumulators, then 8,
 * the last 1-7 through masked loads and stores. */
#include <immintrin.h>

#include "kernels.h"

enum { LANES = 8 };
typedef __m256 rdsum_vec;
typedef __m256i rdsum_tail; /* lane i's mask: all ones for i < rest */

static inline rdsum_vec rdsum_zero(void) { return _mm256_setzero_ps(); }
static inline rdsum_vec rdsum_add(rdsum_vec a, rdsum_vec b) { return _mm256_add_ps(a, b); }
static inline rdsum_vec rdsum_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void rdsum_store(float *p, rdsum_vec v) { _mm256_storeu_ps(p, v); }
static inline rdsum_tail rdsum_tail_of(size_t rest) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)rest), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline rdsum_vec rdsum_load_tail(const float *p, rdsum_tail t) { return _mm256_maskload_ps(p, t); }
static inline void rdsum_store_tail(float *p, rdsum_vec v, rdsum_tail t) { _mm256_maskstore_ps(p, t, v); }

#include "f32_rdsum.h"

void f32_rdsum__avx2(size_t reduced, size_t channels, size_t row_stride, const float *restrict x,
                     float *restrict y) {
    rdsum(reduced, channels, row_stride, x, y);
}
