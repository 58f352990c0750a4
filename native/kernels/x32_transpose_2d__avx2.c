/* x32_transpose_2d__avx2.c — 2-D transpose of 4-byte elements, AVX2: x32_transpose_2d__scalar's result (a
 * copy: the same bits), y[i * out_step + j] = x[i + j * in_step].
 *
 * The same 64 x 64 tiles as the scalar kernel (the walk: x32_transpose_2d_tiles.h), each moved 8 x 8 through
 * registers: 8 loads of 8 consecutive i, an in-register transpose, 8 stores of 8 consecutive j (the scalar
 * kernel moves one element per load and store: [3000][384] took 0.38 ms, XNNPACK's 0.17). Edges of fewer than 8
 * go one element at a time. */
#include <immintrin.h>
#include <stdint.h>

#include "kernels.h"
#include "x32_transpose_8x8__avx2.h"

#define BLOCK 8

/* Pointers stepped per block, not each block indexed from its column. */
static inline void transpose_blocks(int64_t count, const float *in, int64_t in_step, float *out, int64_t out_step) {
    for (int64_t k = 0; k < count; ++k, in += 8 * in_step, out += 8) {
        __m256 v[8];
        for (int b = 0; b < 8; ++b) v[b] = _mm256_loadu_ps(in + b * in_step);
        transpose_8x8(v);
        for (int a = 0; a < 8; ++a) _mm256_storeu_ps(out + a * out_step, v[a]);
    }
}

static inline void transpose_last_columns(int64_t columns, const float *in, int64_t in_step, float *out,
                                          int64_t out_step) {
    for (int64_t b = 0; b < columns; ++b)
        for (int a = 0; a < 8; ++a) out[a * out_step + b] = in[a + b * in_step];
}

#include "x32_transpose_2d_tiles.h"

void x32_transpose_2d__avx2(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y) {
    /* Float loads and stores move any 4-byte pattern unchanged (no arithmetic touches a NaN's payload). */
    transpose_tiles(rows, cols, in_step, out_step, (const float *)x, (float *)y);
}
