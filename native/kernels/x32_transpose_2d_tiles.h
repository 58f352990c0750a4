/* x32_transpose_2d_tiles.h — the tile walk the SIMD x32_transpose_2d kernels share (x32_transpose_2d__avx2.c,
 * x32_transpose_2d__neon.c): y[i * out_step + j] = x[i + j * in_step] in the scalar kernel's 64 x 64 tiles, each
 * in square blocks of BLOCK rows (i) by BLOCK columns (j) moved through registers, a block row's last 1 to BLOCK - 1
 * columns, and a tile's last 1 to BLOCK - 1 rows one element at a time. The including file defines BLOCK and,
 * before including this, the two moves as static inline functions:
 *   transpose_blocks(count, in, in_step, out, out_step): out[a * out_step + b] = in[a + b * in_step], a < BLOCK
 *     and b < count * BLOCK: count square blocks side by side along b (a kernel steps its own pointers, so the
 *     loop over one block row is the kernel's, not a block function's called from here);
 *   transpose_last_columns(columns, in, in_step, out, out_step): the same for a < BLOCK, b < columns < BLOCK.
 * Only moves: every kernel gives the scalar kernel's bytes. */
#ifndef RILLET_X32_TRANSPOSE_2D_TILES_H
#define RILLET_X32_TRANSPOSE_2D_TILES_H

#include <stdint.h>

#ifndef BLOCK
#error "define BLOCK, transpose_block and transpose_last_columns before including x32_transpose_2d_tiles.h"
#endif

enum { TRANSPOSE_TILE = 64 };

static void transpose_tiles(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const float *in,
                            float *out) {
    for (int64_t j0 = 0; j0 < cols; j0 += TRANSPOSE_TILE) {
        const int64_t j1 = cols - j0 < TRANSPOSE_TILE ? cols : j0 + TRANSPOSE_TILE;
        for (int64_t i0 = 0; i0 < rows; i0 += TRANSPOSE_TILE) {
            const int64_t i1 = rows - i0 < TRANSPOSE_TILE ? rows : i0 + TRANSPOSE_TILE;
            int64_t i = i0;
            for (; i + BLOCK <= i1; i += BLOCK) {
                const int64_t blocks = (j1 - j0) / BLOCK, j = j0 + blocks * BLOCK;
                if (blocks) transpose_blocks(blocks, in + i + j0 * in_step, in_step, out + i * out_step + j0, out_step);
                if (j < j1) transpose_last_columns(j1 - j, in + i + j * in_step, in_step, out + i * out_step + j, out_step);
            }
            for (; i < i1; ++i)
                for (int64_t j = j0; j < j1; ++j) out[i * out_step + j] = in[i + j * in_step];
        }
    }
}

#endif
