/* x32_transpose_2d__neon.c — 2-D transpose of 4-byte elements, NEON (aarch64 and armv7):
 * x32_transpose_2d__scalar's result (a copy: the same bits), y[i * out_step + j] = x[i + j * in_step].
 *
 * The same 64 x 64 tiles as the scalar kernel, each moved 4 x 4 through registers: 4 loads of 4 consecutive i,
 * an in-register transpose (vtrnq, then the halves recombined), 4 stores of 4 consecutive j; the scalar kernel
 * moves one element per load and store (TRANSPOSE of a seq-64 attention head ran 2.4x LiteRT's instructions
 * on aarch64). Edges of fewer than 4 go one element at a time. */
#include <arm_neon.h>
#include <stdint.h>

#include "kernels.h"

#define TILE 64

void x32_transpose_2d__neon(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y) {
    /* Float loads and stores move any 4-byte pattern unchanged (no arithmetic touches a NaN's payload). */
    const float *in = (const float *)x;
    float *out = (float *)y;
    for (int64_t j0 = 0; j0 < cols; j0 += TILE) {
        const int64_t j1 = cols - j0 < TILE ? cols : j0 + TILE;
        for (int64_t i0 = 0; i0 < rows; i0 += TILE) {
            const int64_t i1 = rows - i0 < TILE ? rows : i0 + TILE;
            int64_t i = i0;
            for (; i + 4 <= i1; i += 4) {
                int64_t j = j0;
                for (; j + 4 <= j1; j += 4) {
                    const float32x4x2_t t01 = vtrnq_f32(vld1q_f32(in + i + j * in_step),
                                                        vld1q_f32(in + i + (j + 1) * in_step));
                    const float32x4x2_t t23 = vtrnq_f32(vld1q_f32(in + i + (j + 2) * in_step),
                                                        vld1q_f32(in + i + (j + 3) * in_step));
                    vst1q_f32(out + i * out_step + j, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
                    vst1q_f32(out + (i + 1) * out_step + j,
                              vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
                    vst1q_f32(out + (i + 2) * out_step + j,
                              vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
                    vst1q_f32(out + (i + 3) * out_step + j,
                              vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
                }
                for (; j < j1; ++j)
                    for (int a = 0; a < 4; ++a) out[(i + a) * out_step + j] = in[i + a + j * in_step];
            }
            for (; i < i1; ++i)
                for (int64_t j = j0; j < j1; ++j) out[i * out_step + j] = in[i + j * in_step];
        }
    }
}
