/* qs16_gemm.h — TFLite's 16x8 mode on the IGEMM micro-kernels: int16 activations (zero point 0), int8 weights
 * with one scale per output channel (symmetric), int64 (or int32) biases, int16 outputs; the layout of the
 * weights they read, and the requantizations LiteRT's builtin kernels use (XNNPACK takes no 16x8 op).
 *
 * A kernel computes up to mr rows (1..MR) by nc columns (it walks the packed panels of NR columns itself, the
 * last one partial) of an IGEMM: `indirection` holds ks * MR row pointers, tap-major (indirection[p * MR + i]
 * is row i's kc int16 inputs for tap p, a zero buffer for padding taps; a FULLY_CONNECTED is ks 1 with one
 * pointer per input row). Each output is the exact sum, in 64 bits, of the bias and every product, then
 * rl_qs16_requantize: every path gives the scalar kernel's bits. Kernels read no element past a row's kc.
 *
 * Packed weights (rl_pack_qs16_qc8w): for each panel of nr output channels: nr int64 biases (0 past n or
 * with no bias), nr rl_qs16_channel (rl_qs16_requantize's per-channel factors), then for each tap
 * and each pair of channels (kc rounded up to even, zero-filled) nr pairs of int16 weights (the int8 weights
 * sign-extended: AVX2's _mm256_madd_epi16 multiplies an int16 pair of inputs by one such pair per column).
 * RL_QS16_PANEL_HEADER(nr) bytes come before a panel's weights; a rl_qs16_channel is 16 bytes, so the weights
 * stay 8-byte aligned. */
#ifndef RILLET_QS16_GEMM_H
#define RILLET_QS16_GEMM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "isa.h"

/* Which arithmetic turns a sum into an output, each measured against LiteRT 2.3's default Interpreter:
 * - REDUCED64 (CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV): TFLite's MultiplyByQuantizedMultiplier for an
 *   int64 sum: the multiplier first rounded to 16 bits, then one rounding, ties up.
 * - DOUBLE64 (FULLY_CONNECTED with an int64 bias, or none and quantized_bias_type int64: its reference kernel,
 *   which takes the scales): the int64 sum to double, times input_scale * filter_scale / output_scale in
 *   double, rounded half away from zero (exact ties of power-of-two scales, and near-ties where a 31-bit
 *   multiplier would round the other way, say so).
 * - DOUBLE32 (FULLY_CONNECTED with an int32 bias, or none whose quantized_bias_type is not int64: ruy, its sums
 *   in int32, wrapping): the high half of sum * multiplier rounded (ties up), then the right shift rounded
 *   again (ties up), as NEON's sqrdmulh and srshl and ruy's x86 kernels compute it. */
enum { RL_QS16_REDUCED64 = 0, RL_QS16_DOUBLE64 = 1, RL_QS16_DOUBLE32 = 2 };

/* One output channel's factors: TFLite's multiplier in [2^30, 2^31) and shift (rl_quantize_multiplier of scale,
 * at most rl_qs16_max_shift), and the scale itself (DOUBLE64's). */
typedef struct {
    double scale;
    int32_t multiplier, shift;
} rl_qs16_channel;
typedef char rl_qs16_channel_is_16_bytes[sizeof(rl_qs16_channel) == 16 ? 1 : -1]; /* the packed layout's */

typedef struct {
    int32_t rounding; /* RL_QS16_* */
    int32_t act_min, act_max;
} rl_qs16_requantization_params;

/* The largest shift (scale below 2^shift) a rounding defines: REDUCED64 shifts right by 15 - shift (TFLite's
 * own shift past 14 is undefined, and LiteRT 2.3's outputs there follow no formula); the others take any
 * multiplier rl_quantize_multiplier gives below 2^31. */
static inline int32_t rl_qs16_max_shift(int32_t rounding) { return rounding == RL_QS16_REDUCED64 ? 14 : 30; }

/* One sum to int16. REDUCED64's product wraps modulo 2^64 past |sum| 2^48, as TFLite's own int64 arithmetic
 * would (it assumes sums below 2^47). */
static inline int16_t rl_qs16_requantize(int64_t sum, const rl_qs16_channel *channel,
                                         const rl_qs16_requantization_params *params) {
    const int32_t multiplier = channel->multiplier, shift = channel->shift;
    int64_t v;
    if (params->rounding == RL_QS16_DOUBLE64) {
        double real = round((double)sum * channel->scale); /* one IEEE product: the same on every CPU */
        /* TFLite casts it to int32: past int32's range x86's conversion gives INT32_MIN (measured: LiteRT's
         * outputs there are the activation's minimum), which is what rillet gives on every CPU. */
        if (!(real >= -2147483648.0 && real < 2147483648.0)) real = -2147483648.0;
        return (int16_t)(real < params->act_min ? params->act_min : (real > params->act_max ? params->act_max : real));
    }
    if (params->rounding == RL_QS16_REDUCED64) {
        const int64_t reduced = multiplier < 0x7FFF0000 ? (multiplier + (1 << 15)) >> 16 : 0x7FFF;
        const int32_t total = 15 - shift;
        v = (int64_t)((uint64_t)sum * (uint64_t)reduced + ((uint64_t)1 << (total - 1))) >> total;
    } else {
        const int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
        const int64_t x = (int32_t)((uint32_t)sum << left); /* the int32 sum, wrapped */
        v = (x * multiplier + ((int64_t)1 << 30)) >> 31;
        if (right) v = (v + ((int64_t)1 << (right - 1))) >> right;
    }
    /* Arithmetic right shifts of negative values, as TFLite's; every compiler rillet builds with shifts so. */
    return (int16_t)(v < params->act_min ? params->act_min : (v > params->act_max ? params->act_max : v));
}

typedef void (*rl_qs16_qc8w_igemm_fn)(size_t mr, size_t nc, size_t kc, size_t ks, const int16_t *const *indirection,
                                      const void *w, int16_t *c, size_t c_stride,
                                      const rl_qs16_requantization_params *params);

typedef struct {
    uint32_t mr, nr;
    rl_qs16_qc8w_igemm_fn igemm;
} rl_qs16_gemm_config;

#define RL_QS16_QC8W_IGEMM_FN(name)                                                                            \
    void name(size_t mr, size_t nc, size_t kc, size_t ks, const int16_t *const *indirection, const void *w,     \
              int16_t *c, size_t c_stride, const rl_qs16_requantization_params *params)

/* Bytes of the packed weights of n columns; w is [n][ks][kc] (an OHWI filter or [units, depth]); bias n int64
 * (or int32, bias_is_int32) values or NULL; channels n. */
size_t rl_qs16_qc8w_packed_size(size_t n, size_t ks, size_t kc, size_t nr);
void rl_pack_qs16_qc8w(size_t n, size_t ks, size_t kc, size_t nr, const int8_t *w, const void *bias,
                       int bias_is_int32, const rl_qs16_channel *channels, void *packed);
#define RL_QS16_PANEL_HEADER(nr) ((nr) * (sizeof(int64_t) + sizeof(rl_qs16_channel)))

/* The best kernel of a path: AVX2's on every x86 SIMD path, NEON's on both Arm paths, else scalar
 * (qs16_configs.c). */
rl_qs16_gemm_config rl_qs16_gemm_config_for(rl_isa isa);

RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_2x4c2__scalar);
RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_4x16c2__avx2);
RL_QS16_QC8W_IGEMM_FN(qs16_qc8w_igemm_4x8c2__neon);

#endif
