/* x32_transpose_2d__neon.c — 2-D transpose of 4-byte elements, NEON (aarch64 and armv7):
 * x32_transpose_2d__scalar's result (a copy: the same bits), y[i * out_step + j] = x[i + j * in_step].
 *
 * The same 64 x 64 tiles as the scalar kernel (the walk: x32_transpose_2d_tiles.h), each moved 4 x 4 through
 * registers: 4 loads of 4 consecutive i,
 * an in-register transpose (vtrnq, then the halves recombined), 4 stores of 4 consecutive j; the scalar kernel
 * moves one element per load and store (TRANSPOSE of a seq-64 attention head ran 2.4x LiteRT's instructions
 * on aarch64). A tile's last 1-3 columns (j) go 4 rows (i) at a time too: a vector from each column, stored as
 * one interleaved block (vst3q: 12 consecutive floats) where those columns are whole output rows (NCHW RGB to
 * NHWC, ViT's first op: 1.98x LiteRT's instructions one float at a time), else as a 1-3 float structure per
 * row (vst3q_lane). A last 1-3 rows go one element at a time. */
#include <arm_neon.h>
#include <stdint.h>

#include "kernels.h"

#define BLOCK 4

/* out[a * out_step + b] = in[a + b * in_step] for a and b < 4. */
static inline void transpose_block(const float *in, int64_t in_step, float *out, int64_t out_step) {
    const float32x4x2_t t01 = vtrnq_f32(vld1q_f32(in), vld1q_f32(in + in_step));
    const float32x4x2_t t23 = vtrnq_f32(vld1q_f32(in + 2 * in_step), vld1q_f32(in + 3 * in_step));
    vst1q_f32(out, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
    vst1q_f32(out + out_step, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
    vst1q_f32(out + 2 * out_step, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
    vst1q_f32(out + 3 * out_step, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
}

/* The same for 4 rows a and the last 1-3 columns b. */
static inline void transpose_last_columns(int64_t columns, const float *in, int64_t in_step, float *out,
                                          int64_t out_step) {
    const float32x4_t c0 = vld1q_f32(in);
    if (columns == 1) {
        if (out_step == 1) {
            vst1q_f32(out, c0);
            return;
        }
        vst1q_lane_f32(out, c0, 0);
        vst1q_lane_f32(out + out_step, c0, 1);
        vst1q_lane_f32(out + 2 * out_step, c0, 2);
        vst1q_lane_f32(out + 3 * out_step, c0, 3);
    } else if (columns == 2) {
        const float32x4x2_t c = {{c0, vld1q_f32(in + in_step)}};
        if (out_step == 2) {
            vst2q_f32(out, c);
            return;
        }
        vst2q_lane_f32(out, c, 0);
        vst2q_lane_f32(out + out_step, c, 1);
        vst2q_lane_f32(out + 2 * out_step, c, 2);
        vst2q_lane_f32(out + 3 * out_step, c, 3);
    } else {
        const float32x4x3_t c = {{c0, vld1q_f32(in + in_step), vld1q_f32(in + 2 * in_step)}};
        if (out_step == 3) {
            vst3q_f32(out, c);
            return;
        }
        vst3q_lane_f32(out, c, 0);
        vst3q_lane_f32(out + out_step, c, 1);
        vst3q_lane_f32(out + 2 * out_step, c, 2);
        vst3q_lane_f32(out + 3 * out_step, c, 3);
    }
}

#include "x32_transpose_2d_tiles.h"

void x32_transpose_2d__neon(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y) {
    /* Float loads and stores move any 4-byte pattern unchanged (no arithmetic touches a NaN's payload). */
    transpose_tiles(rows, cols, in_step, out_step, (const float *)x, (float *)y);
}
