/* x32_transpose_2d__neon.c — 2-D transpose of 4-byte elements, NEON (aarch64 and armv7):
 * x32_transpose_2d__scalar's result (a copy: the same bits), y[i * out_step + j] = x[i + j * in_step].
 *
 * The same 64 x 64 tiles as the scalar kernel (the walk: x32_transpose_2d_tiles.h), each moved 4 x 4 through
 * registers: 4 loads of 4 consecutive i, an in-register transpose, 4 stores of 4 consecutive j (the scalar
 * kernel moves one element per load and store: TRANSPOSE of a seq-64 attention head ran 2.4x LiteRT's
 * instructions on aarch64). A block row is one loop over its blocks, its pointers stepped in it. On aarch64 each
 * output row of a block is one tbl of the four loaded columns (a four-register tbl picks any 16 of their 64
 * bytes), as XNNPACK's 4x4_aarch64_neon_tbl128: 14 instructions a block with the loads' and stores' pointer
 * steps and the loop's, written as inline asm because gcc 12 copies a four-register tuple into a new register
 * group for each tbl (2.7 instructions an element); trn1/trn2 then zip1/zip2 of the 64-bit halves in intrinsics
 * were 20 a block, vcombine of vget_low/vget_high halves 26. armv7 (no four-register tbl): vtrn, then the halves.
 * A tile's last 1-3 columns (j) go 4 rows (i) at a time too: a vector from each column, stored as one
 * interleaved block (vst3q: 12 consecutive floats) where those columns are whole output rows (NCHW RGB to
 * NHWC, ViT's first op: 1.98x LiteRT's instructions one float at a time), else as a 1-3 float structure per
 * row (vst3q_lane). A last 1-3 rows go one element at a time. */
#include <arm_neon.h>
#include <stdint.h>

#include "kernels.h"

#define BLOCK 4

/* out[a * out_step + b] = in[a + b * in_step] for a < 4 and b < 4 * count. Not inlined: inside the tile walk
 * gcc kept too few registers free for its eight pointers and spilled them in the block loop. */
static __attribute__((noinline)) void transpose_blocks(int64_t count, const float *in, int64_t in_step, float *out,
                                                     int64_t out_step) {
    const float *i0 = in, *i1 = in + in_step, *i2 = in + 2 * in_step, *i3 = in + 3 * in_step;
    float *o0 = out, *o1 = out + out_step, *o2 = out + 2 * out_step, *o3 = out + 3 * out_step;
    const int64_t step = 4 * in_step;
#if defined(__aarch64__)
    /* output row a takes bytes 4a..4a+3 of each of the four loaded columns */
    static const uint8_t picks[4][16] = {{0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51},
                                         {4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39, 52, 53, 54, 55},
                                         {8, 9, 10, 11, 24, 25, 26, 27, 40, 41, 42, 43, 56, 57, 58, 59},
                                         {12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 60, 61, 62, 63}};
    const uint8x16_t pick0 = vld1q_u8(picks[0]), pick1 = vld1q_u8(picks[1]);
    const uint8x16_t pick2 = vld1q_u8(picks[2]), pick3 = vld1q_u8(picks[3]);
    const int64_t step_bytes = step * (int64_t)sizeof(float);
    /* tbl's four table registers must be consecutive, which no operand constraint can ask for: the block row's
     * loop is written out with v16-v23 named, each load and store stepping its own pointer (count >= 1) */
    const float *const end = o0 + 4 * count;
    __asm__ volatile(
        "1:\n\t"
        "ld1 {v16.4s}, [%[i0]], %[step]\n\t"
        "ld1 {v17.4s}, [%[i1]], %[step]\n\t"
        "ld1 {v18.4s}, [%[i2]], %[step]\n\t"
        "ld1 {v19.4s}, [%[i3]], %[step]\n\t"
        "tbl v20.16b, {v16.16b-v19.16b}, %[p0].16b\n\t"
        "tbl v21.16b, {v16.16b-v19.16b}, %[p1].16b\n\t"
        "tbl v22.16b, {v16.16b-v19.16b}, %[p2].16b\n\t"
        "tbl v23.16b, {v16.16b-v19.16b}, %[p3].16b\n\t"
        "st1 {v20.4s}, [%[o0]], #16\n\t"
        "st1 {v21.4s}, [%[o1]], #16\n\t"
        "st1 {v22.4s}, [%[o2]], #16\n\t"
        "st1 {v23.4s}, [%[o3]], #16\n\t"
        "cmp %[o0], %[end]\n\t"
        "b.ne 1b"
        : [i0] "+r"(i0), [i1] "+r"(i1), [i2] "+r"(i2), [i3] "+r"(i3), [o0] "+r"(o0), [o1] "+r"(o1), [o2] "+r"(o2),
          [o3] "+r"(o3)
        : [step] "r"(step_bytes), [end] "r"(end), [p0] "w"(pick0), [p1] "w"(pick1), [p2] "w"(pick2),
          [p3] "w"(pick3)
        : "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "cc", "memory");
#else
    for (int64_t k = 0; k < count; ++k) {
        const float32x4x2_t t01 = vtrnq_f32(vld1q_f32(i0), vld1q_f32(i1));
        const float32x4x2_t t23 = vtrnq_f32(vld1q_f32(i2), vld1q_f32(i3));
        i0 += step, i1 += step, i2 += step, i3 += step;
        vst1q_f32(o0, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
        vst1q_f32(o1, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
        vst1q_f32(o2, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
        vst1q_f32(o3, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
        o0 += 4, o1 += 4, o2 += 4, o3 += 4;
    }
#endif
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
