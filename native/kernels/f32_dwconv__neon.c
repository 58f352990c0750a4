/* f32_dwconv__neon.c — float32 depthwise convolution, any taps, 8-channel tiles, NEON (aarch64 and armv7).
 *
 * Each channel's sum runs bias first, then taps in order, one multiply-add per tap: fused on aarch64
 * (vfmaq_f32); armv7 rounds the multiply and the add apart (vmlaq_f32), as the scalar kernel. Two pixels run
 * at once over a tile, so each weight vector is loaded once for both and four chains are in flight. A
 * tile's last channels past `channels` are copied into a zeroed block first, so no input is read past
 * `channels` (the weights are padded to the tile and loaded whole). The same channel gets the same
 * operations whichever pass computes it, so any split of the pixels gives the same bits.
 *
 * 3x3 and 5x5 filters on aarch64 (every depthwise layer of the MobileNets) take taps_unrolled: a pair of pixels'
 * 18 input pointers (3x3), or one pixel's 25 (5x5), are read once and held in registers, each stepping 8 channels
 * in its load (ld1 with post-increment), where the loop over any taps reloaded each tap's two pointers and added
 * the channel offset at every tile: 90 instructions per 3x3 pair and tile (5 per tap and pixel of 8 channels),
 * 109 per 5x5 pixel and tile, instead of about 8 per tap and pixel plus each tap's loop; MobileNetV2's 17
 * depthwise layers went from 25.7M to 12.5M instructions per invoke under qemu (LiteRT's XNNPACK 18.1M). armv7's
 * 14 general registers cannot hold them: it keeps the loop. */
#include <arm_neon.h>
#include <string.h>

#include "f32_microkernels.h"

enum { CT = 8 };

#if defined(__aarch64__)
#define MULADD(acc, x, w) vfmaq_f32(acc, x, w)
#else
#define MULADD(acc, x, w) vmlaq_f32(acc, x, w)
#endif

static void store_clamped(float *out, size_t count, float32x4_t lo, float32x4_t hi, float32x4_t vmin,
                          float32x4_t vmax) {
    lo = vminq_f32(vmaxq_f32(lo, vmin), vmax);
    hi = vminq_f32(vmaxq_f32(hi, vmin), vmax);
    if (count == CT) {
        vst1q_f32(out, lo);
        vst1q_f32(out + 4, hi);
    } else {
        float block[CT];
        vst1q_f32(block, lo);
        vst1q_f32(block + 4, hi);
        memcpy(out, block, count * sizeof(float));
    }
}

/* The channels c0 .. c0 + count (count < CT) of one pixel, from a zero-padded copy of each tap's inputs. */
static void dwconv_tail(size_t c0, size_t count, const float *tile, size_t taps, const float *const *in, float *out,
                        float32x4_t vmin, float32x4_t vmax) {
    float32x4_t acc_lo = vld1q_f32(tile), acc_hi = vld1q_f32(tile + 4);
    for (size_t t = 0; t < taps; ++t) {
        float x[CT] = {0};
        memcpy(x, in[t] + c0, count * sizeof(float));
        const float *wt = tile + CT * (1 + t);
        acc_lo = MULADD(acc_lo, vld1q_f32(x), vld1q_f32(wt));
        acc_hi = MULADD(acc_hi, vld1q_f32(x + 4), vld1q_f32(wt + 4));
    }
    store_clamped(out + c0, count, acc_lo, acc_hi, vmin, vmax);
}

/* Every channel of one pixel. */
static void dwconv_pixel(size_t channels, size_t taps, const float *w, const float *const *in, float *out,
                         float32x4_t vmin, float32x4_t vmax) {
    const float *tile = w;
    size_t c0 = 0;
    for (; c0 + CT <= channels; c0 += CT, tile += CT * (1 + taps)) {
        float32x4_t acc_lo = vld1q_f32(tile), acc_hi = vld1q_f32(tile + 4);
        for (size_t t = 0; t < taps; ++t) {
            const float *x = in[t] + c0, *wt = tile + CT * (1 + t);
            acc_lo = MULADD(acc_lo, vld1q_f32(x), vld1q_f32(wt));
            acc_hi = MULADD(acc_hi, vld1q_f32(x + 4), vld1q_f32(wt + 4));
        }
        store_clamped(out + c0, CT, acc_lo, acc_hi, vmin, vmax);
    }
    if (c0 < channels) dwconv_tail(c0, channels - c0, tile, taps, in, out, vmin, vmax);
}

#if defined(__aarch64__)
/* The `tiles` full tiles of P (1 or 2) pixels of T (9 or 25) taps each, P and T constants once inlined: in0 and in1
 * are the pixels' tap pointers (in1 unread when P is 1). Same operations, in the same order, as the loop over any
 * taps. */
static inline __attribute__((always_inline)) void taps_unrolled(size_t T, size_t P, size_t tiles,
                                                                 const float *const *in0, const float *const *in1,
                                                                 const float *w, float *out0, float *out1,
                                                                 float32x4_t vmin, float32x4_t vmax) {
    const float *x0[25], *x1[25];
    for (size_t t = 0; t < T; ++t) x0[t] = in0[t], x1[t] = P == 2 ? in1[t] : in0[t];
    for (; tiles != 0; --tiles, w += CT * (1 + T)) {
        float32x4_t acc0_lo = vld1q_f32(w), acc0_hi = vld1q_f32(w + 4);
        float32x4_t acc1_lo = acc0_lo, acc1_hi = acc0_hi;
#pragma GCC unroll 25
        for (size_t t = 0; t < T; ++t) {
            const float32x4_t w_lo = vld1q_f32(w + CT * (1 + t)), w_hi = vld1q_f32(w + CT * (1 + t) + 4);
            const float32x4x2_t v0 = vld1q_f32_x2(x0[t]);
            x0[t] += CT;
            acc0_lo = vfmaq_f32(acc0_lo, v0.val[0], w_lo);
            acc0_hi = vfmaq_f32(acc0_hi, v0.val[1], w_hi);
            if (P == 2) {
                const float32x4x2_t v1 = vld1q_f32_x2(x1[t]);
                x1[t] += CT;
                acc1_lo = vfmaq_f32(acc1_lo, v1.val[0], w_lo);
                acc1_hi = vfmaq_f32(acc1_hi, v1.val[1], w_hi);
            }
        }
        store_clamped(out0, CT, acc0_lo, acc0_hi, vmin, vmax);
        out0 += CT;
        if (P == 2) {
            store_clamped(out1, CT, acc1_lo, acc1_hi, vmin, vmax);
            out1 += CT;
        }
    }
}

/* 3x3 filters two pixels at a time (18 pointers), 5x5 ones one at a time (25 pointers: what the general
 * registers hold beside the weights, output and count). */
static void dwconv_unrolled(size_t taps, size_t channels, size_t pixels, const float *const *indirection,
                            size_t indirection_step, const float *w, float *output, size_t output_stride,
                            float32x4_t vmin, float32x4_t vmax) {
    const size_t tiles = channels / CT, full = tiles * CT;
    const float *const tail_w = w + tiles * CT * (1 + taps);
    const size_t pair = taps == 9 ? 2 : 1;
    for (size_t p = 0; p < pixels; p += pair) {
        const float *const *in0 = indirection + p * indirection_step, *const *in1 = in0 + indirection_step;
        float *out0 = output + p * output_stride, *out1 = out0 + output_stride;
        const int two = pair == 2 && p + 2 <= pixels;
        if (taps == 25) taps_unrolled(25, 1, tiles, in0, in0, w, out0, out0, vmin, vmax);
        else if (two) taps_unrolled(9, 2, tiles, in0, in1, w, out0, out1, vmin, vmax);
        else taps_unrolled(9, 1, tiles, in0, in0, w, out0, out0, vmin, vmax);
        if (full < channels) {
            dwconv_tail(full, channels - full, tail_w, taps, in0, out0, vmin, vmax);
            if (two) dwconv_tail(full, channels - full, tail_w, taps, in1, out1, vmin, vmax);
        }
    }
}
#endif

void f32_dwconv__neon(size_t channels, size_t pixels, size_t taps, const float *const *indirection,
                      size_t indirection_step, const float *w, float *output, size_t output_stride,
                      const rl_f32_minmax_params *params) {
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
#if defined(__aarch64__)
    if (taps == 9 || taps == 25) {
        dwconv_unrolled(taps, channels, pixels, indirection, indirection_step, w, output, output_stride, vmin, vmax);
        return;
    }
#endif
    const size_t full = channels / CT * CT;
    size_t p = 0;
    for (; p + 2 <= pixels; p += 2) {
        const float *const *in0 = indirection + p * indirection_step, *const *in1 = in0 + indirection_step;
        float *out0 = output + p * output_stride, *out1 = out0 + output_stride;
        const float *tile = w;
        for (size_t c0 = 0; c0 < full; c0 += CT, tile += CT * (1 + taps)) {
            float32x4_t acc0_lo = vld1q_f32(tile), acc0_hi = vld1q_f32(tile + 4);
            float32x4_t acc1_lo = acc0_lo, acc1_hi = acc0_hi;
            for (size_t t = 0; t < taps; ++t) {
                const float *wt = tile + CT * (1 + t);
                const float32x4_t w_lo = vld1q_f32(wt), w_hi = vld1q_f32(wt + 4);
                const float *x0 = in0[t] + c0, *x1 = in1[t] + c0;
                acc0_lo = MULADD(acc0_lo, vld1q_f32(x0), w_lo);
                acc0_hi = MULADD(acc0_hi, vld1q_f32(x0 + 4), w_hi);
                acc1_lo = MULADD(acc1_lo, vld1q_f32(x1), w_lo);
                acc1_hi = MULADD(acc1_hi, vld1q_f32(x1 + 4), w_hi);
            }
            store_clamped(out0 + c0, CT, acc0_lo, acc0_hi, vmin, vmax);
            store_clamped(out1 + c0, CT, acc1_lo, acc1_hi, vmin, vmax);
        }
        if (full < channels) {
            dwconv_tail(full, channels - full, tile, taps, in0, out0, vmin, vmax);
            dwconv_tail(full, channels - full, tile, taps, in1, out1, vmin, vmax);
        }
    }
    if (p < pixels)
        dwconv_pixel(channels, taps, w, indirection + p * indirection_step, output + p * output_stride, vmin, vmax);
}
