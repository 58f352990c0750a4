/* rowdot.h — row-dot micro-kernels: a FULLY_CONNECTED of a few input rows that reads the model's weights in
 * place, row-major [units][depth] as TFLite stores them, instead of packing them into GEMM panels.
 *
 * A kernel computes, for each input row i < m and output channel n < nc,
 *   y[i * y_stride + n] = act(bias[n] + sum over k < kc of x[i * x_stride + k] * w[n * kc + k])
 * walking the weight rows a few at a time (the tile in its name: 1 input row by 4 weight rows per step) and,
 * for each such block, every input row in turn: the block is read from memory once and from cache for the
 * other rows. Batch-1 FULLY_CONNECTED is a stream of its weights, so packing them buys nothing there and
 * costs a copy as large as the weights at every start.
 *
 * float32: bias may be NULL (no bias). The scalar kernel adds bias, then k ascending, rounding after every
 * multiply and add: the specification. SIMD kernels sum k in lanes and fuse multiply-adds, so they agree
 * with it within a few ulps of |bias| + sum |x * w| (the kernel testers' tolerance), not of a result that
 * cancels. Each output's sum does not depend on nc, m or where a block starts, so the thread split never
 * changes a result.
 *
 * int8 (qs8 activations, per-channel int8 weights): bias holds nc int32 sums prepared by the op:
 *   bias[n] = model_bias[n] - (input_zero_point + input_offset) * sum over k of w[n][k]
 * in wrapping 32-bit arithmetic, input_offset being the config's (128 for kernels that add 128 to every
 * input byte to use VNNI's unsigned-by-signed dot product); scales holds nc floats (input_scale *
 * filter_scale / output_scale). Sums wrap modulo 2^32, and the requantization is gemm.h's fp32 one, so
 * every path gives the scalar kernel's bits.
 *
 * int8 to int32 (s8_s32): the sums alone, bias[n] (or 0, bias NULL) plus x * w modulo 2^32, stored as int32, for
 * ops whose epilogue is their own (the int8 and hybrid LSTMs: TFLite's fixed-point or float scaling of each
 * gate's sum). Every path gives the scalar kernel's bits.
 *
 * Kernels read no byte past a weight row's or an input row's end (the weights may end where the model file
 * ends, an input row where the arena ends) and write only the nc outputs of each of the m rows. */
#ifndef RILLET_ROWDOT_H
#define RILLET_ROWDOT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gemm.h"
#include "isa.h"

typedef void (*rl_f32_rowdot_fn)(size_t m, size_t nc, size_t kc, const float *x, size_t x_stride, const float *w,
                                 const float *bias, float *y, size_t y_stride, const rl_f32_minmax_params *params);
typedef void (*rl_qs8_rowdot_fn)(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                                 const int32_t *bias, const float *scales, int8_t *y, size_t y_stride,
                                 const rl_qs8_requantization_params *params);
/* float32 row times matrix: y[n] = sum over k < kc of x[k] * w[k * w_stride + n], n < nc, for BATCH_MATMUL's
 * single-row products whose y changes at every invoke (a decoder's attention over its KV cache): y read in
 * place, [k][n] rows as the model holds it, where the GEMM would pack all of it to use one row. The scalar
 * kernel's order (0, then k ascending, each multiply and add rounded) is the specification; SIMD kernels fuse
 * the multiply-adds (same k order per output), within a few ulps of sum |x * w|. No read past column nc of a
 * row, no write past y[nc - 1]. */
typedef void (*rl_f32_vecmat_fn)(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y);
typedef void (*rl_s8_s32_rowdot_fn)(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride,
                                    const int8_t *w, const int32_t *bias, int32_t *y, size_t y_stride);

/* What dispatch hands the FULLY_CONNECTED driver (ops/fc_rowdot.c): nr is the weight rows per step, which
 * the driver's thread tiles are a multiple of. */
typedef struct {
    uint32_t nr;
    rl_f32_rowdot_fn rowdot;
    rl_f32_vecmat_fn vecmat; /* BATCH_MATMUL's row times matrix (ops/batch_matmul_gemm.c) */
} rl_f32_rowdot_config;

typedef struct {
    uint32_t nr;
    int32_t input_offset;
    rl_qs8_rowdot_fn rowdot;
} rl_qs8_rowdot_config;

/* The best kernels of a path: AVX-512's on both AVX-512 paths (VNNI's for int8 where the CPU has it), AVX2's,
 * NEON's on both Arm paths, else scalar (rowdot_configs.c). */
rl_f32_rowdot_config rl_f32_rowdot_config_for(rl_isa isa);
rl_qs8_rowdot_config rl_qs8_rowdot_config_for(rl_isa isa);
/* int8 to int32: the kernel for any weights, and one for weights in [-127, 127] only (TFLite's quantizer's
 * range; AVX2's multiplies 32 bytes a step there, where -128 times -128 pairs would saturate its int16 sums; the
 * others' is their general kernel). AVX2's on every x86 SIMD path, the dot-product one on NEONDOT (aarch64),
 * NEON's on the other Arm paths, else scalar. */
typedef struct {
    rl_s8_s32_rowdot_fn rowdot, rowdot_narrow_weights;
} rl_s8_s32_rowdot_config;
rl_s8_s32_rowdot_config rl_s8_s32_rowdot_config_for(rl_isa isa);

/* The weight rows a step reads: the `rows` (1 to 4) real ones from row n0 on, and past nc the last real one
 * again (computed, never stored, so a step never reads past the weights and needs no remainder code). */
static inline size_t rl_rowdot_rows_at(size_t nc, size_t n0) { return nc - n0 < 4 ? nc - n0 : 4; }
#define RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3)                                                  \
    w0 = (w) + (n0) * (kc);                                                                                      \
    w1 = (rows) > 1 ? w0 + (kc) : w0;                                                                            \
    w2 = (rows) > 2 ? w1 + (kc) : w1;                                                                            \
    w3 = (rows) > 3 ? w2 + (kc) : w2

/* A step's int32 biases (bias NULL: none) and float scales (scales NULL: none), 0 past its real rows, so that
 * SIMD kernels load them four at a time. */
typedef struct {
    int32_t bias[4];
    float scale[4];
} rl_rowdot_step_params;
static inline rl_rowdot_step_params rl_rowdot_step_params_at(const int32_t *bias, const float *scales, size_t n0,
                                                             size_t rows) {
    rl_rowdot_step_params p = {{0, 0, 0, 0}, {0.0f, 0.0f, 0.0f, 0.0f}};
    for (size_t j = 0; j < rows; ++j) {
        if (bias) p.bias[j] = bias[n0 + j];
        if (scales) p.scale[j] = scales[n0 + j];
    }
    return p;
}

/* Writes a step's first `rows` int8 outputs, given all four as the low bytes of `bytes` (little-endian). */
static inline void rl_rowdot_store_s8x4(int8_t *y, uint32_t bytes, size_t rows) {
    if (rows == 4) {
        memcpy(y, &bytes, 4);
    } else {
        for (size_t j = 0; j < rows; ++j) y[j] = (int8_t)(uint8_t)(bytes >> (8 * j));
    }
}

/* Writes a step's first `rows` int32 outputs from all four. */
static inline void rl_rowdot_store_s32x4(int32_t *y, const int32_t all[4], size_t rows) {
    for (size_t j = 0; j < rows; ++j) y[j] = all[j];
}

#define RL_F32_ROWDOT_FN(name)                                                                                 \
    void name(size_t m, size_t nc, size_t kc, const float *x, size_t x_stride, const float *w, const float *bias, \
              float *y, size_t y_stride, const rl_f32_minmax_params *params)
#define RL_QS8_ROWDOT_FN(name)                                                                                 \
    void name(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,                \
              const int32_t *bias, const float *scales, int8_t *y, size_t y_stride,                              \
              const rl_qs8_requantization_params *params)
#define RL_S8_S32_ROWDOT_FN(name)                                                                              \
    void name(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,                \
              const int32_t *bias, int32_t *y, size_t y_stride)

/* Only rowdot_configs.c should hand these out: an ISA kernel on a CPU without that ISA is an illegal
 * instruction. */
RL_F32_ROWDOT_FN(f32_rowdot_1x4__scalar);
void f32_vecmat__scalar(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y);
RL_QS8_ROWDOT_FN(qs8_qc8w_rowdot_1x4__scalar);
RL_S8_S32_ROWDOT_FN(s8_s32_rowdot_1x4__scalar);
#if defined(__x86_64__) || defined(_M_X64)
RL_F32_ROWDOT_FN(f32_rowdot_1x4__avx2);
RL_F32_ROWDOT_FN(f32_rowdot_1x4__avx512);
void f32_vecmat_1x32__avx2(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y);
void f32_vecmat_1x64__avx512(size_t kc, size_t nc, const float *x, const float *w, size_t w_stride, float *y);
RL_QS8_ROWDOT_FN(qs8_qc8w_rowdot_1x4__avx2);
RL_QS8_ROWDOT_FN(qs8_qc8w_rowdot_1x4__avx512vnni); /* input_offset 128 */
RL_S8_S32_ROWDOT_FN(s8_s32_rowdot_1x4__avx2);
RL_S8_S32_ROWDOT_FN(s8_s32_rowdot_narrow_1x4__avx2); /* weights in [-127, 127] */
#endif
#if RL_HAVE_NEON_KERNELS
RL_F32_ROWDOT_FN(f32_rowdot_1x4__neon);
RL_QS8_ROWDOT_FN(qs8_qc8w_rowdot_1x4__neon);
RL_S8_S32_ROWDOT_FN(s8_s32_rowdot_1x4__neon);
#if defined(__aarch64__)
RL_QS8_ROWDOT_FN(qs8_qc8w_rowdot_1x4__neondot);
RL_S8_S32_ROWDOT_FN(s8_s32_rowdot_1x4__neondot);
#endif
#endif

#endif
