/* qs8_qc8w_dwconv_16c__neon.h — the NEON int8 depthwise kernel of 16-channel tiles (aarch64 and armv7), one body
 * for its two entry points: qs8_qc8w_dwconv_16c__neon (any weights) and qs8_qc8w_dwconv_16c_pairs__neon (no
 * weight -128: two taps' products summed in int16 before widening, XNNPACK's "mla8" arithmetic; 6 instead of 8
 * multiply and widen instructions per 16 channels a tap). Both are bit for bit the scalar kernel's.
 *
 * Per tap, vmull_s8 multiplies 8 inputs by 8 weights into int16 (every product of two int8 fits, -128 * -128
 * included) and vaddw_s16 widens them into the int32 sums, which wrap like the specification's. Whole tiles
 * run two pixels at a time; a tile's last channels run in halves of 8, a last half of 1-7 channels reading
 * each tap's inputs and weights (read where the model holds them, dwconv.h) through zero-padded copies, so
 * nothing is read past `channels`; on aarch64, 3x3 and 5x5 filters run their own loop (dwconv_16c_fixed).
 * The fp32 requantization is qs8_requantize__neon.h's. */
#ifndef RILLET_QS8_QC8W_DWCONV_16C_NEON_H
#define RILLET_QS8_QC8W_DWCONV_16C_NEON_H

#include "qs8_configs.h"
#include "qs8_requantize__neon.h"

enum { CT = 16 };

/* count (1..8) bytes from p, zeros after them, reading only those. */
static inline int8x8_t load_partial8(const int8_t *p, size_t count) {
    if (count == 8) return vld1_s8(p);
    int8_t padded[8] = {0};
    memcpy(padded, p, count);
    return vld1_s8(padded);
}

/* Channels c0 .. c0 + count (1..8) of one pixel: half h (0 or 1) of the tile at `tile`. */
static void dwconv_half(size_t c0, size_t count, size_t h, const unsigned char *tile, size_t taps,
                        const int8_t *const *in, const int8_t *const *weights, int8_t *out,
                        const rl_neon_requantization *rq) {
    int32x4_t acc_lo = rl_neon_load_s32(tile + 32 * h), acc_hi = rl_neon_load_s32(tile + 32 * h + 16);
    for (size_t t = 0; t < taps; ++t) {
        const int16x8_t product = vmull_s8(load_partial8(in[t] + c0, count), load_partial8(weights[t] + c0, count));
        acc_lo = vaddw_s16(acc_lo, vget_low_s16(product));
        acc_hi = vaddw_s16(acc_hi, vget_high_s16(product));
    }
    const unsigned char *scales = tile + CT * sizeof(int32_t) + 32 * h;
    const int8x8_t v = rl_neon_requantize8(acc_lo, acc_hi, scales, rq);
    if (count == 8)
        vst1_s8(out + c0, v);
    else
        rl_neon_store_partial8(out + c0, v, count);
}

/* acc[0..3] += 16 inputs x times 16 weights w (int16 products, widened into the int32 sums). */
static inline void multiply_add16(int32x4_t *acc, int8x16_t x, int8x16_t w) {
    const int16x8_t lo = vmull_s8(vget_low_s8(x), vget_low_s8(w));
    const int16x8_t hi = vmull_s8(vget_high_s8(x), vget_high_s8(w));
    acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));
    acc[1] = vaddw_s16(acc[1], vget_high_s16(lo));
    acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));
    acc[3] = vaddw_s16(acc[3], vget_high_s16(hi));
}

/* acc[0..3] += x0 * w0 + x1 * w1, two taps of 16 channels: the two products summed in int16 (vmlal_s8), then
 * widened once. Exact when no weight is -128 (each |x w| <= 128 * 127, the pair <= 32512), which the driver
 * checks before choosing the paired kernel; the int32 sums then wrap as the specification's. */
static inline void multiply_add16_pair(int32x4_t *acc, int8x16_t x0, int8x16_t w0, int8x16_t x1, int8x16_t w1) {
    const int16x8_t lo = vmlal_s8(vmull_s8(vget_low_s8(x0), vget_low_s8(w0)), vget_low_s8(x1), vget_low_s8(w1));
    const int16x8_t hi = vmlal_s8(vmull_s8(vget_high_s8(x0), vget_high_s8(w0)), vget_high_s8(x1), vget_high_s8(w1));
    acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));
    acc[1] = vaddw_s16(acc[1], vget_high_s16(lo));
    acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));
    acc[3] = vaddw_s16(acc[3], vget_high_s16(hi));
}

static inline void requantize_store16(int8_t *out, const int32x4_t *acc, const unsigned char *scales,
                                      const rl_neon_requantization *rq) {
    vst1q_s8(out, rl_neon_requantize16(acc, scales, rq));
}

/* The channels from c0 (a tile boundary, `tile` its tile) to the end, of one pixel. */
static inline __attribute__((always_inline)) void dwconv_pixel(size_t c0, const unsigned char *tile, size_t channels,
                                                               size_t taps, const int8_t *const *in,
                                                               const int8_t *const *weights, int8_t *out,
                                                               const rl_neon_requantization *rq, int pairs) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    for (; c0 + CT <= channels; c0 += CT, tile += tile_bytes) {
        int32x4_t acc[4];
        for (size_t q = 0; q < 4; ++q) acc[q] = rl_neon_load_s32(tile + 16 * q);
        size_t t = 0;
        if (pairs)
            for (; t + 2 <= taps; t += 2)
                multiply_add16_pair(acc, vld1q_s8(in[t] + c0), vld1q_s8(weights[t] + c0), vld1q_s8(in[t + 1] + c0),
                                    vld1q_s8(weights[t + 1] + c0));
        for (; t < taps; ++t) multiply_add16(acc, vld1q_s8(in[t] + c0), vld1q_s8(weights[t] + c0));
        requantize_store16(out + c0, acc, tile + CT * sizeof(int32_t), rq);
    }
    const size_t rest = channels - c0;
    if (rest > 0) dwconv_half(c0, rest < 8 ? rest : 8, 0, tile, taps, in, weights, out, rq);
    if (rest > 8) dwconv_half(c0 + 8, rest - 8, 1, tile, taps, in, weights, out, rq);
}

#if defined(__aarch64__)
enum { FIXED_TAPS_MAX = 25 };

/* A 3x3 or 5x5 filter (`taps` 9 or 25, a constant once inlined): one pixel at a time with the tile loop inside it
 * and the taps unrolled, so the weight pointers (for the whole call) and the pixel's input pointers stay out of
 * the tap loop and a tap of 16 channels costs its 2 vector loads and its arithmetic, as XNNPACK's 9p16c / 25p16c
 * kernels do. The general loop below keeps the tap loop innermost and loads 3 pointers per 2 taps of a pixel
 * besides (its two pixels sharing each weight vector). For 9 taps gcc keeps all 18 pointers in registers (no
 * spill in the tile loop); for 25 about half of the 50 are reloaded from the stack, one load per tap, still no
 * loop overhead per tap. Under qemu cortex-a76 (bench/arm_op_instructions.py), depthwise instructions per invoke:
 * mobilenet_v2_100_224_int8 15.84M -> 13.15M (LiteRT 15.6M), efficientnet_b0_int8 (3x3 and 5x5) 21.40M with
 * only the 3x3 loop -> 20.36M (LiteRT 23.1-23.5M). A pixel's last 8-15 channels run their first 8 the same
 * way; the last 1-7 run as dwconv_half. aarch64 only: armv7's 14 usable registers cannot hold even the 3x3's
 * 18 pointers, so it keeps the loop below. */
static inline __attribute__((always_inline)) void dwconv_16c_fixed(const size_t taps, size_t channels,
                                                                   size_t pixels, const int8_t *const *indirection,
                                                                   size_t indirection_step,
                                                                   const int8_t *const *weights, const void *packed,
                                                                   int8_t *output, size_t output_stride,
                                                                   const rl_neon_requantization *rq, int pairs) {
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    const size_t full = channels / CT * CT;
    const int8_t *w[FIXED_TAPS_MAX];
    for (size_t t = 0; t < taps; ++t) w[t] = weights[t];
    for (size_t px = 0; px < pixels; ++px) {
        const int8_t *const *taps_in = indirection + px * indirection_step;
        const int8_t *in[FIXED_TAPS_MAX];
        for (size_t t = 0; t < taps; ++t) in[t] = taps_in[t];
        int8_t *out = output + px * output_stride;
        const unsigned char *tile = packed;
        for (size_t c0 = 0; c0 < full; c0 += CT, tile += tile_bytes) {
            int32x4_t acc[4];
            for (size_t q = 0; q < 4; ++q) acc[q] = rl_neon_load_s32(tile + 16 * q);
            size_t t = 0;
            /* Unrolled in full (gcc's own limit leaves 25 taps a loop of pointer loads from the arrays). */
            if (pairs)
#pragma GCC unroll 16
                for (; t + 2 <= taps; t += 2)
                    multiply_add16_pair(acc, vld1q_s8(in[t] + c0), vld1q_s8(w[t] + c0), vld1q_s8(in[t + 1] + c0),
                                        vld1q_s8(w[t + 1] + c0));
#pragma GCC unroll 32
            for (; t < taps; ++t) multiply_add16(acc, vld1q_s8(in[t] + c0), vld1q_s8(w[t] + c0));
            requantize_store16(out + c0, acc, tile + CT * sizeof(int32_t), rq);
        }
        if (full + 8 <= channels) { /* a half tile of 8 (72, 88, 120 channels...) with the same pointers */
            int32x4_t lo = rl_neon_load_s32(tile), hi = rl_neon_load_s32(tile + 16);
            size_t t = 0;
            if (pairs)
#pragma GCC unroll 16
                for (; t + 2 <= taps; t += 2) {
                    const int16x8_t product = vmlal_s8(vmull_s8(vld1_s8(in[t] + full), vld1_s8(w[t] + full)),
                                                       vld1_s8(in[t + 1] + full), vld1_s8(w[t + 1] + full));
                    lo = vaddw_s16(lo, vget_low_s16(product));
                    hi = vaddw_s16(hi, vget_high_s16(product));
                }
#pragma GCC unroll 32
            for (; t < taps; ++t) {
                const int16x8_t product = vmull_s8(vld1_s8(in[t] + full), vld1_s8(w[t] + full));
                lo = vaddw_s16(lo, vget_low_s16(product));
                hi = vaddw_s16(hi, vget_high_s16(product));
            }
            vst1_s8(out + full, rl_neon_requantize8(lo, hi, tile + CT * sizeof(int32_t), rq));
            if (full + 8 < channels)
                dwconv_half(full + 8, channels - full - 8, 1, tile, taps, taps_in, weights, out, rq);
        } else if (full < channels) {
            dwconv_half(full, channels - full, 0, tile, taps, taps_in, weights, out, rq);
        }
    }
}
#endif

/* Two pixels at a time over the whole tiles (each weight vector loaded once for both: 3 loads per 32 products
 * instead of 4, and eight sums in flight), then each pixel's last channels, and a last odd pixel, one at a
 * time. Under qemu this is only 2% fewer instructions on mobilenet_v2_035_96's depthwise layers (1.64M ->
 * 1.60M); what the saved loads are worth on a Pi's load port is not measured yet. */
static inline __attribute__((always_inline)) void dwconv_16c(size_t channels, size_t pixels, size_t taps,
                                                             const int8_t *const *indirection, size_t indirection_step,
                                                             const int8_t *const *weights, const void *packed,
                                                             int8_t *output, size_t output_stride,
                                                             const rl_qs8_requantization_params *params, int pairs) {
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
#if defined(__aarch64__)
    if (taps == 9 || taps == 25) { /* constants, so that each gets its own unrolled loop */
        if (taps == 9)
            dwconv_16c_fixed(9, channels, pixels, indirection, indirection_step, weights, packed, output,
                             output_stride, &rq, pairs);
        else
            dwconv_16c_fixed(25, channels, pixels, indirection, indirection_step, weights, packed, output,
                             output_stride, &rq, pairs);
        return;
    }
#endif
    const size_t tile_bytes = CT * (sizeof(int32_t) + sizeof(float));
    const size_t full = channels / CT * CT;
    size_t px = 0;
    for (; px + 2 <= pixels; px += 2) {
        const int8_t *const *in0 = indirection + px * indirection_step, *const *in1 = in0 + indirection_step;
        int8_t *out0 = output + px * output_stride, *out1 = out0 + output_stride;
        const unsigned char *tile = packed;
        for (size_t c0 = 0; c0 < full; c0 += CT, tile += tile_bytes) {
            int32x4_t acc0[4], acc1[4];
            for (size_t q = 0; q < 4; ++q) acc0[q] = acc1[q] = rl_neon_load_s32(tile + 16 * q);
            size_t t = 0;
            if (pairs)
                for (; t + 2 <= taps; t += 2) {
                    const int8x16_t w0 = vld1q_s8(weights[t] + c0), w1 = vld1q_s8(weights[t + 1] + c0);
                    multiply_add16_pair(acc0, vld1q_s8(in0[t] + c0), w0, vld1q_s8(in0[t + 1] + c0), w1);
                    multiply_add16_pair(acc1, vld1q_s8(in1[t] + c0), w0, vld1q_s8(in1[t + 1] + c0), w1);
                }
            for (; t < taps; ++t) {
                const int8x16_t wv = vld1q_s8(weights[t] + c0);
                multiply_add16(acc0, vld1q_s8(in0[t] + c0), wv);
                multiply_add16(acc1, vld1q_s8(in1[t] + c0), wv);
            }
            requantize_store16(out0 + c0, acc0, tile + CT * sizeof(int32_t), &rq);
            requantize_store16(out1 + c0, acc1, tile + CT * sizeof(int32_t), &rq);
        }
        dwconv_pixel(full, tile, channels, taps, in0, weights, out0, &rq, pairs);
        dwconv_pixel(full, tile, channels, taps, in1, weights, out1, &rq, pairs);
    }
    if (px < pixels)
        dwconv_pixel(0, packed, channels, taps, indirection + px * indirection_step, weights,
                     output + px * output_stride, &rq, pairs);
}

#endif
