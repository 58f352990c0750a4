/* xx_transpose__scalar.c — TRANSPOSE's fast path: xx_transpose_ref's result (the specification) with the
 * permutation simplified first and the copy done in runs or tiles.
 *
 * Axes of size 1 are dropped and output axes that are neighbours, in the same order, in the input are
 * merged: attention's [0,2,1,3] on [1,s,h,d] becomes [1,0,2] on [s,h,d], and [0,3,1,2] on [1,1,3000,384] a
 * plain 2-D transpose. Then either the output's last axis is the input's last (its elements contiguous in
 * both): one copy per run, the runs along the last axis but one in a loop of their own (copy_runs), the outer
 * indices stepped like an odometer with their offsets kept, not recomputed; or the input's innermost axis
 * moves: 2-D transposes of that axis against the output's last,
 * in tiles (the reference's element loop strides through the whole input for every output row: 6-9x
 * LiteRT+XNNPACK's time on [1,1500,6,64] by [0,2,3,1] and on a 1500 x 384 matrix). */
#include <stdint.h>
#include <string.h>

#include "kernels.h"

#define TILE 64 /* elements: 64 lines read and 64 written per tile, within the L1 cache and the TLB */

/* The 2-D transposes of one element type: out[i * out_step + j] = in[i + j * in_step] over rows x cols, in
 * tiles of TILE x TILE (one 16 x 16 block at a time walked all 3,000 lines of a [3000][384] input, a new page
 * every few lines: 1.7 ms, XNNPACK 0.2), each copied 8 x 8 through a local block with constant bounds,
 * which the compiler keeps in registers. */
#define DEFINE_TRANSPOSE_2D(name, type)                                                                       \
    static void name(const void *x, void *y, int64_t rows, int64_t cols, int64_t in_step, int64_t out_step) { \
        const type *in = (const type *)x;                                                                    \
        type *out = (type *)y;                                                                               \
        for (int64_t j0 = 0; j0 < cols; j0 += TILE) {                                                        \
            const int64_t j1 = cols - j0 < TILE ? cols : j0 + TILE;                                          \
            for (int64_t i0 = 0; i0 < rows; i0 += TILE) {                                                    \
                const int64_t i1 = rows - i0 < TILE ? rows : i0 + TILE;                                      \
                int64_t i = i0;                                                                              \
                for (; i + 8 <= i1; i += 8) {                                                                \
                    int64_t j = j0;                                                                          \
                    for (; j + 8 <= j1; j += 8) {                                                            \
                        type block[8][8];                                                                    \
                        for (int b = 0; b < 8; ++b)                                                          \
                            for (int a = 0; a < 8; ++a) block[b][a] = in[i + a + (j + b) * in_step];         \
                        for (int a = 0; a < 8; ++a)                                                          \
                            for (int b = 0; b < 8; ++b) out[(i + a) * out_step + j + b] = block[b][a];       \
                    }                                                                                        \
                    for (; j < j1; ++j)                                                                      \
                        for (int a = 0; a < 8; ++a) out[(i + a) * out_step + j] = in[i + a + j * in_step];   \
                }                                                                                            \
                for (; i < i1; ++i)                                                                          \
                    for (int64_t j = j0; j < j1; ++j) out[i * out_step + j] = in[i + j * in_step];           \
            }                                                                                                \
        }                                                                                                    \
    }
DEFINE_TRANSPOSE_2D(transpose_2d_1, uint8_t)
DEFINE_TRANSPOSE_2D(transpose_2d_2, uint16_t)
DEFINE_TRANSPOSE_2D(transpose_2d_4, uint32_t)
DEFINE_TRANSPOSE_2D(transpose_2d_8, uint64_t)

void x32_transpose_2d__scalar(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y) {
    transpose_2d_4(x, y, rows, cols, in_step, out_step);
}

typedef void (*transpose_2d_fn)(const void *x, void *y, int64_t rows, int64_t cols, int64_t in_step, int64_t out_step);

/* rows runs of `bytes` each, in_step and out_step bytes apart. On aarch64 a run of whole 64-byte blocks is
 * copied with a fixed-size copy per block, which gcc inlines as two 32-byte load and store pairs: glibc's
 * memcpy took about 45 instructions, call and size dispatch included, for attention's 256-byte head rows
 * ([1500, 6, 64] to [6, 1500, 64]), the blocks 16. */
static void copy_runs(const char *from, char *to, int64_t rows, size_t bytes, int64_t in_step, int64_t out_step) {
#if defined(__aarch64__)
    if (bytes % 64 == 0) {
        for (int64_t k = 0; k < rows; ++k, from += in_step, to += out_step)
            for (size_t b = 0; b < bytes; b += 64) memcpy(to + b, from + b, 64);
        return;
    }
#endif
    for (int64_t k = 0; k < rows; ++k, from += in_step, to += out_step) memcpy(to, from, bytes);
}

void xx_transpose_layout(int32_t rank, const int64_t *in_dims, const int32_t *perm, size_t elem,
                         rl_transpose_layout *t) {
    memset(t, 0, sizeof *t);
    t->elem = elem;
    t->inner = t->moved = -1;
    int64_t in_strides[8], count = 1, s = 1;
    for (int32_t d = rank - 1; d >= 0; --d) {
        in_strides[d] = s;
        s *= in_dims[d];
        count *= in_dims[d];
    }
    t->count = count;
    if (count == 0) return;
    /* The output's axes without those of size 1, neighbours in the input merged into one. */
    int32_t r = 0;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t dim = in_dims[perm[d]], stride = in_strides[perm[d]];
        if (dim == 1) continue;
        if (r > 0 && t->strides[r - 1] == stride * dim) {
            t->dims[r - 1] *= dim;
            t->strides[r - 1] = stride;
        } else {
            t->dims[r] = dim;
            t->strides[r++] = stride;
        }
    }
    if (r == 0) { /* every axis of size 1: one element */
        t->dims[0] = 1;
        t->strides[0] = 1;
        r = 1;
    }
    t->rank = r;
    /* Runs: the last axis, contiguous in the input too; else the output's last axis against the input's
     * innermost one (stride 1: it is somewhere among the output's axes), a 2-D transpose per outer index. */
    t->inner = t->strides[r - 1] == 1 ? r - 1 : -1;
    for (int32_t d = 0; d < r && t->inner < 0; ++d)
        if (t->strides[d] == 1) t->moved = d;
    int64_t out_size = 1;
    for (int32_t d = r - 1; d >= 0; --d) {
        t->out_strides[d] = out_size;
        out_size *= t->dims[d];
    }
}

void xx_transpose_range__scalar(const rl_transpose_layout *t, int64_t first, int64_t count, const void *x, void *y,
                                rl_x32_transpose_2d_fn x32_transpose_2d) {
    const size_t elem = t->elem;
    transpose_2d_fn transpose_2d = elem == 1   ? transpose_2d_1
                                   : elem == 2 ? transpose_2d_2
                                   : elem == 8 ? transpose_2d_8
                                               : NULL; /* 4: the path's x32_transpose_2d */
    if (t->count == 0 || count <= 0) return;
    const int32_t r = t->rank, inner = t->inner, moved = t->moved;
    const char *from = (const char *)x;
    char *to = (char *)y;
    if (r == 1) { /* the same order: one copy */
        memcpy(to + first * (int64_t)elem, from + first * (int64_t)elem, (size_t)count * elem);
        return;
    }
    int64_t dims[8];
    memcpy(dims, t->dims, sizeof dims);
    dims[0] = count;
    const int64_t *strides = t->strides, *out_strides = t->out_strides;
    /* The odometer over every axis but the last and (for transposes) the moved one; copies step the last
     * axis but one themselves (copy_runs), so the odometer skips it. */
    int64_t index[8] = {0}, in_offset = first * strides[0], out_offset = first * out_strides[0];
    const int32_t copied = inner >= 0 ? r - 2 : -1;
    for (;;) {
        if (inner >= 0)
            copy_runs(from + in_offset * (int64_t)elem, to + out_offset * (int64_t)elem, dims[r - 2],
                      (size_t)dims[r - 1] * elem, strides[r - 2] * (int64_t)elem, out_strides[r - 2] * (int64_t)elem);
        else if (elem == 4)
            x32_transpose_2d(dims[moved], dims[r - 1], strides[r - 1], out_strides[moved], from + in_offset * 4,
                             to + out_offset * 4);
        else
            transpose_2d(from + in_offset * (int64_t)elem, to + out_offset * (int64_t)elem, dims[moved], dims[r - 1],
                         strides[r - 1], out_strides[moved]);
        int32_t d = r - 2;
        for (; d >= 0; --d) {
            if (d == moved || d == copied) continue;
            in_offset += strides[d];
            out_offset += out_strides[d];
            if (++index[d] < dims[d]) break;
            in_offset -= strides[d] * dims[d];
            out_offset -= out_strides[d] * dims[d];
            index[d] = 0;
        }
        if (d < 0) return;
    }
}

void xx_transpose__scalar(int32_t rank, const int64_t *in_dims, const int32_t *perm, size_t elem, const void *x,
                          void *y, rl_x32_transpose_2d_fn x32_transpose_2d) {
    if (elem != 1 && elem != 2 && elem != 4 && elem != 8) { /* an element size none of the blocks is for */
        xx_transpose_ref(rank, in_dims, perm, elem, x, y);
        return;
    }
    rl_transpose_layout t;
    xx_transpose_layout(rank, in_dims, perm, elem, &t);
    xx_transpose_range__scalar(&t, 0, t.dims[0], x, y, x32_transpose_2d);
}
