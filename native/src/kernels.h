/* kernels.h — the kernels' plain signatures and the table the plan dispatches through.
 *
 * A kernel knows nothing of plans or tensors: pointers, sizes and a geometry struct. The table holds
 * one function pointer per kernel so SIMD paths can replace the scalar references at run time.
 */
#ifndef RILLET_KERNELS_H
#define RILLET_KERNELS_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include "dwconv.h"
#include "f32_vexp.h"
#include "vactivation.h"
#include "s16_velementwise.h"
#include "gemm.h"
#include "isa.h"
#include "pool.h"
#include "qd8_dwconv.h"
#include "qd8_gemm.h"
#include "qs16_gemm.h"
#include "quant.h"
#include "requantize_fixedpoint.h"
#include "rowdot.h"
#include "vcvt.h"

/* Convolution and pooling geometry, NHWC. */
typedef struct {
    int32_t batch, in_h, in_w, in_c;
    int32_t out_h, out_w, out_c;
    int32_t filter_h, filter_w;
    int32_t stride_h, stride_w, dilation_h, dilation_w;
    int32_t pad_h, pad_w;
    int32_t depth_multiplier;
    float act_min, act_max;
} rl_window_geometry;

/* DEPTHWISE_CONV_2D in TFLite's 16x8 mode (qs16_gemm.h's REDUCED64), output rows first_row .. first_row + rows - 1
 * (row b * out_h + y): filter [1, fh, fw, out_c], output channel c reads input channel c / depth_multiplier; bias
 * out_c int64 values or NULL; one rl_qs16_channel per output channel (s16_dwconv2d_ref.c). */
void s16_dwconv2d_rows_ref(const rl_window_geometry *g, const rl_qs16_requantization_params *params,
                           const rl_qs16_channel *channels, const int16_t *input, const int8_t *filter,
                           const int64_t *bias, int16_t *output, size_t first_row, size_t rows);

/* An element-wise binary op over broadcast shapes, flattened to rank 8 with 0 strides. */
typedef struct {
    int64_t out_dims[8];
    int64_t a_strides[8], b_strides[8];
    int64_t count;
    int32_t contiguous; /* 1: a and b have the output's shape; 2: b is one element; 3: a is one element */
    float act_min, act_max;
} rl_broadcast;

/* 2-D transposes of 4-byte elements: y[i * out_step + j] = x[i + j * in_step], rows x cols (TRANSPOSE,
 * BATCH_MATMUL's adj_x); the kernel table's x32_transpose_2d is the path's. */
typedef void (*rl_x32_transpose_2d_fn)(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x,
                                       void *y);

/* Where the row of broadcast output index `index` (its first 7 axes; the last walks the row) starts in a and
 * in b: what every broadcasting kernel's loop over rows asks. */
static inline void rl_broadcast_row(const rl_broadcast *bc, const int64_t *index, int64_t *ia, int64_t *ib) {
    *ia = 0;
    *ib = 0;
    for (int d = 0; d < 7; ++d) {
        *ia += index[d] * bc->a_strides[d];
        *ib += index[d] * bc->b_strides[d];
    }
}

typedef enum {
    RL_BIN_ADD, RL_BIN_SUB, RL_BIN_MUL, RL_BIN_DIV, RL_BIN_SQUARED_DIFFERENCE, RL_BIN_MAXIMUM, RL_BIN_MINIMUM,
    RL_BIN_PRELU /* x >= 0 ? x : x * alpha, alpha the second operand */
} rl_binary_op;
typedef enum {
    RL_UN_RSQRT, RL_UN_EXP, RL_UN_LOG, RL_UN_NEG, RL_UN_RELU, RL_UN_RELU6, RL_UN_LOGISTIC, RL_UN_TANH,
    RL_UN_HARD_SWISH, RL_UN_SIN, RL_UN_COS, RL_UN_ABS, RL_UN_SQRT, RL_UN_SQUARE
} rl_unary_op;
/* float32 element-wise micro-kernels (f32_vbinary__*.c, f32_vlrelu__*.c; which path gets which:
 * f32_vbinary_configs.c): an rl_binary_op in f32_binary_ref's arithmetic, each result clamped to [p->min, p->max]
 * in its order (v < min ? min : v, then v > max ? max : v). The scalar kernels are the specification; the SIMD
 * ones give their bits, with no fused multiply-add and a true divide (a NaN stays a NaN; which NaN, when both
 * operands are one, is the hardware's). Armv7's NEON flushes subnormals to zero where the scalar kernels on
 * VFP do not: only results or operands below 2^-126 can differ there. out may be the full operand (in place).
 * vbinary: n outputs of a op b, both n values. vbinaryc: n outputs of x op v[0] (v[0] op x when reversed).
 * vbinary_rows: rows of `channels` outputs, row r of x (x + r * channels) op the vector v of `channels` values
 * (v op row when reversed): a per-channel operand in one call. vlrelu: LEAKY_RELU, f32_leaky_relu_ref's
 * x > 0 ? x : x * alpha. */
typedef void (*rl_f32_vbinary_fn)(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                                  const rl_f32_minmax_params *p);
typedef void (*rl_f32_vbinaryc_fn)(rl_binary_op op, int reversed, size_t n, const float *x, const float *v,
                                   float *out, const rl_f32_minmax_params *p);
typedef void (*rl_f32_vbinary_rows_fn)(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                                       const float *v, float *out, const rl_f32_minmax_params *p);
typedef void (*rl_f32_vlrelu_fn)(size_t n, float alpha, const float *x, float *y);
typedef struct {
    rl_f32_vbinary_fn vbinary;
    rl_f32_vbinaryc_fn vbinaryc;
    rl_f32_vbinary_rows_fn vbinary_rows;
    rl_f32_vlrelu_fn vlrelu;
} rl_f32_vbinary_config;
/* AVX2's on every x86 SIMD path (AVX-512's wider vectors would not help a loop that waits on memory), NEON's on
 * both Arm paths, else scalar. */
rl_f32_vbinary_config rl_f32_vbinary_config_for(rl_isa isa);
void f32_vbinary__scalar(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                         const rl_f32_minmax_params *p);
void f32_vbinaryc__scalar(rl_binary_op op, int reversed, size_t n, const float *x, const float *v, float *out,
                          const rl_f32_minmax_params *p);
void f32_vbinary_rows__scalar(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                              const float *v, float *out, const rl_f32_minmax_params *p);
void f32_vlrelu__scalar(size_t n, float alpha, const float *x, float *y);
#if defined(__x86_64__) || defined(_M_X64)
void f32_vbinary__avx2(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                       const rl_f32_minmax_params *p);
void f32_vbinaryc__avx2(rl_binary_op op, int reversed, size_t n, const float *x, const float *v, float *out,
                        const rl_f32_minmax_params *p);
void f32_vbinary_rows__avx2(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                            const float *v, float *out, const rl_f32_minmax_params *p);
void f32_vlrelu__avx2(size_t n, float alpha, const float *x, float *y);
#endif
#if RL_HAVE_NEON_KERNELS
void f32_vbinary__neon(rl_binary_op op, size_t n, const float *a, const float *b, float *out,
                       const rl_f32_minmax_params *p);
void f32_vbinaryc__neon(rl_binary_op op, int reversed, size_t n, const float *x, const float *v, float *out,
                        const rl_f32_minmax_params *p);
void f32_vbinary_rows__neon(rl_binary_op op, int reversed, size_t rows, size_t channels, const float *x,
                            const float *v, float *out, const rl_f32_minmax_params *p);
void f32_vlrelu__neon(size_t n, float alpha, const float *x, float *y);
#endif
/* Comparisons: a bool (one byte, 0 or 1) per broadcast element. */
typedef enum { RL_CMP_GREATER, RL_CMP_GREATER_EQUAL, RL_CMP_LESS, RL_CMP_LESS_EQUAL, RL_CMP_EQUAL, RL_CMP_NOT_EQUAL } rl_compare_op;

/* int8 requantization of an int32 accumulator the way XNNPACK's fp32 path does it, which is what LiteRT's
 * default Interpreter runs for int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (its XNNPACK delegate
 * takes them): the accumulator converted to float, times a float scale (input_scale * filter_scale /
 * output_scale, evaluated in float at prepare), clamped to the output range less the zero point, rounded
 * to nearest with ties to even, plus the output zero point. Measured against LiteRT 2.3: TFLite's own
 * fixed-point kernels (BUILTIN, BUILTIN_REF) round ties differently and disagree with it. */
typedef struct {
    int32_t input_zero_point, output_zero_point;
    int32_t output_min, output_max; /* clamp in the output's integers (fused activation included) */
    const float *scale;             /* one per output channel (per-tensor filters repeat one value) */
} rl_s8_requantization;

static inline int8_t rl_requantize_fp32(int32_t acc, float scale, const rl_s8_requantization *rq) {
    float v = (float)acc * scale;
    const float lo = (float)(rq->output_min - rq->output_zero_point);
    const float hi = (float)(rq->output_max - rq->output_zero_point);
    v = v < lo ? lo : (v > hi ? hi : v); /* clamping before rounding: the bounds are integers */
    return (int8_t)((int32_t)nearbyintf(v) + rq->output_zero_point);
}

/* int8 BATCH_MATMUL: both operands int8 activations (or y constant), each quantized per tensor with any
 * zero point. LiteRT's default Interpreter runs two arithmetics, measured against LiteRT 2.3 on every
 * combination of zero points: where y's zero point is 0 its XNNPACK delegate takes the op and requantizes
 * with rl_requantize_fp32 (scale = x_scale * y_scale / output_scale in float); where it is not, XNNPACK
 * declines and TFLite's builtin kernel runs (its optimized and reference kernels agree): the accumulator
 * times QuantizeMultiplier((double)(float)(x_scale * y_scale) / (double)output_scale), double rounding
 * (rl_mul_by_quantized_multiplier), plus the output zero point, clamped. */
typedef struct {
    int32_t x_zero_point, y_zero_point, output_zero_point;
    int32_t output_min, output_max;
    int32_t fixed_point; /* 1: TFLite's multiplier and shift (y_zero_point != 0); 0: XNNPACK's float scale */
    float scale;
    int32_t multiplier, shift;
} rl_s8_batch_matmul_params;

static inline int8_t rl_s8_batch_matmul_requantize(int32_t acc, const rl_s8_batch_matmul_params *p) {
    if (!p->fixed_point) {
        const rl_s8_requantization rq = {p->x_zero_point, p->output_zero_point, p->output_min, p->output_max, NULL};
        return rl_requantize_fp32(acc, p->scale, &rq);
    }
    const int32_t v = rl_mul_by_quantized_multiplier(acc, p->multiplier, p->shift) + p->output_zero_point;
    return (int8_t)rl_clamp_i32(v, p->output_min, p->output_max);
}

/* int8 element-wise binary arithmetic: which runtime's formula (see s8_binary_ref.c). */
typedef enum { RL_S8_ADD_TFLITE, RL_S8_SUB_TFLITE, RL_S8_ADDSUB_XNNPACK, RL_S8_MUL_TFLITE, RL_S8_MUL_XNNPACK } rl_s8_binary_kind;
struct rl_s8_binary_params;
struct rl_s8_reduce_params;

/* int8 element-wise micro-kernels in XNNPACK's arithmetic (kinds RL_S8_ADDSUB_XNNPACK, RL_S8_MUL_XNNPACK):
 * n elements of a op b; vadd/vmul read n elements of b, vaddc/vmulc only b[0] (a constant, or a broadcast
 * row's one element). ops/elementwise_int8.c walks a broadcast in rows of these. */
typedef void (*rl_qs8_vbinary_fn)(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                  const struct rl_s8_binary_params *p);
typedef struct {
    rl_qs8_vbinary_fn vadd, vaddc, vmul, vmulc;
} rl_qs8_vbinary_config;

/* Bilinear resizing as XNNPACK computes it (LiteRT's default Interpreter when its delegate takes the op):
 * each output row's and column's source pair and weight, worked out once at prepare (xx_ibilinear_coordinate),
 * then float and int8 (1/2048 weights) blending; NHWC, int8 quantized as the input. */
typedef struct {
    int32_t lower, upper; /* source rows (or columns) */
    float alpha;          /* the upper one's weight */
    int32_t alpha_q11;    /* the same in 1/2048ths, as XNNPACK's int8 kernels take it */
} rl_ibilinear_tap;
/* int8: one output row of out_w pixels of `channels`, from input rows `top` and `bottom` (in_w pixels each)
 * blended with the row's weight wv (1/2048ths) and each column's pair and weight from cols. The op's driver
 * (resize.c) walks the rows; the scalar kernel is the specification, the others give its bits
 * (native/tests/qs8_kernels_test.c). */
typedef void (*rl_s8_ibilinear_fn)(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                                   const rl_ibilinear_tap *cols, int32_t wv, int8_t *y);

typedef void (*rl_f32_window_fn)(const rl_window_geometry *g, const float *input, const float *filter,
                                 const float *bias, float *output);

typedef struct {
    rl_f32_window_fn f32_conv2d;
    rl_f32_window_fn f32_dwconv2d;
    rl_f32_window_fn f32_maxpool2d;  /* filter and bias unused */
    rl_f32_window_fn f32_avgpool2d;
    void (*f32_fully_connected)(int64_t batch, int32_t in_depth, int32_t units, const float *input,
                                const float *weights, const float *bias, float act_min, float act_max,
                                float *output);
    void (*f32_batch_matmul)(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                             int32_t adj_y, const float *a, const float *b, float *out);
    void (*s8_conv2d)(const rl_window_geometry *g, const rl_s8_requantization *rq, const int8_t *input,
                      const int8_t *filter, const int32_t *bias, int8_t *output);
    void (*s8_dwconv2d)(const rl_window_geometry *g, const rl_s8_requantization *rq, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, int8_t *output);
    void (*s8_fully_connected)(int64_t batch, int32_t in_depth, int32_t units, const rl_s8_requantization *rq,
                               const int8_t *input, const int8_t *weights, const int32_t *bias, int8_t *output);
    void (*s8_batch_matmul)(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x, int32_t adj_y,
                            const rl_s8_batch_matmul_params *p, const int8_t *a, const int8_t *b, int8_t *out);
    void (*qd8_f32_qc8w_fully_connected)(int64_t batch, int32_t in_depth, int32_t units, const float *input,
                                         const int8_t *weights, const float *weight_scales, const float *bias,
                                         float act_min, float act_max, int8_t *row_scratch, float *output);
    void (*qd8_f32_qc8w_conv2d)(const rl_window_geometry *g, const float *input, const int8_t *filter,
                                const float *filter_scales, const float *bias, int8_t *image_scratch, float *output);
    void (*qd8_f32_qc8w_dwconv2d)(const rl_window_geometry *g, const float *input, const int8_t *filter,
                                  const float *filter_scales, const float *bias, int8_t *image_scratch, float *output);
    void (*qd8_f32_qc8w_batch_matmul)(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                                      int32_t adj_y, const float *a, const int8_t *b, const float *b_scales,
                                      int32_t per_column, int8_t *row_scratch, float *out);
    void (*f32_s8_quantize)(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y);
    void (*s8_requantize)(int64_t count, int32_t input_zero_point, int32_t multiplier_q8, int32_t output_zero_point,
                          const int8_t *x, int8_t *y);
    rl_qs8_f32_vcvt_fn qs8_f32_vcvt; /* DEQUANTIZE: one run of elements sharing a scale (vcvt.h) */
    void (*f16_f32_convert)(int64_t count, const uint16_t *x, float *y);
    void (*f32_binary)(rl_binary_op op, const rl_broadcast *bc, const float *a, const float *b, float *out);
    void (*f32_unary)(rl_unary_op op, int64_t count, const float *x, float *y);
    void (*f32_softmax)(int64_t rows, int32_t depth, float beta, const float *x, float *y);
    void (*f32_log_softmax)(int64_t rows, int32_t depth, const float *x, float *y);
    void (*f32_gemv_eigen)(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w,
                           const float *bias, float *y, float act_min, float act_max);
    rl_x32_transpose_2d_fn x32_transpose_2d;
    void (*f32_reduce_sum)(const int64_t *dims, const int32_t *reduced, float divisor, const float *x,
                           float *y, int64_t out_count);
    void (*s8_binary)(const rl_broadcast *bc, const struct rl_s8_binary_params *p, const int8_t *a,
                      const int8_t *b, int8_t *out);
    void (*s8_lut)(int64_t count, const int8_t *table, const int8_t *x, int8_t *y);
    void (*qs8_rdsum)(size_t reduced, size_t channels, const int8_t *x, int32_t *acc); /* int8 MEAN/SUM over H, W */
    void (*f32_rdsum)(size_t reduced, size_t channels, size_t row_stride, const float *x, float *y); /* float's */
    void (*s8_maxpool2d)(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int8_t *x, int8_t *y);
    void (*s8_avgpool2d)(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int8_t *x, int8_t *y);
    void (*s8_softmax)(int64_t rows, int32_t depth, const float *exp_table, float output_scale, int32_t output_zero_point,
                       const int8_t *x, int8_t *y);
    void (*s8_reduce)(const int64_t *dims, const int32_t *reduced, const struct rl_s8_reduce_params *p, const int8_t *x,
                      int32_t *acc, int8_t *y, int64_t out_count);
    void (*s8_log_softmax)(int64_t rows, int32_t depth, const float *exp_table, float input_scale, float output_scale,
                           int32_t output_zero_point, const int8_t *x, int8_t *y);
    /* Micro-kernel families (gemm.h, dwconv.h): the ops' drivers tile the tensor and call these. */
    rl_f32_gemm_config f32_gemm;
    rl_f32_gemm_config f32_gemm_wide; /* layers of RL_F32_GEMM_WIDE_MIN_COLUMNS channels or more (f32_configs.h) */
    rl_qs8_gemm_config qs8_gemm;
    rl_qs8_gemm_config qs8_gemm_pairs; /* for constant filters without -128, where gemm != NULL (qs8_configs.h) */
    rl_qs16_gemm_config qs16_gemm; /* TFLite's 16x8 CONV_2D and FULLY_CONNECTED (qs16_gemm.h) */
    rl_qd8_gemm_config qd8_gemm; /* hybrid: float activations quantized per row, int8 weights (qd8_gemm.h) */
    rl_qd8_gemm_config qd8_gemm_pairs; /* for constant weights without -128, where gemm != NULL (qd8_gemm.h) */
    rl_qd8_dwconv_fn qd8_dwconv; /* hybrid depthwise, TFLite's arithmetic (qd8_dwconv.h) */
    rl_qd8_quantize_config qd8_quantize; /* their inputs' quantizations (qd8_gemm.h) */
    rl_f32_dwconv_config f32_dwconv;
    rl_qs8_dwconv_config qs8_dwconv;
    /* For an op with fewer channels than two of the tiles above and not a whole number of them, where the
     * wide tile computes masked-off lanes (see rl_dwconv_wants_narrow): the narrower kernels. */
    rl_f32_dwconv_config f32_dwconv_narrow;
    rl_qs8_dwconv_config qs8_dwconv_narrow;
    rl_f32_dwconv_config f32_dwconv_small; /* layers of few channels (dwconv_driver.c: rl_dwconv_wants_small) */
    rl_qs8_dwconv_config qs8_dwconv_small;
    rl_qs8_vbinary_config qs8_vbinary;
    rl_f32_vbinary_config f32_vbinary; /* float element-wise binary ops and LEAKY_RELU */
    rl_qs8_pool_config qs8_pool;
    rl_s8_ibilinear_fn s8_ibilinear; /* RESIZE_BILINEAR on XNNPACK's int8 arithmetic, a row at a time */
    rl_f32_pool_config f32_pool;
    /* FULLY_CONNECTED of a few rows on its weights in place (rowdot.h, ops/fc_rowdot.c). */
    rl_f32_rowdot_config f32_rowdot;
    rl_qs8_rowdot_config qs8_rowdot;
    /* The LSTMs' gate products (int8 and hybrid: int32 sums, rowdot.h) and gate activations (vactivation.h). */
    rl_s8_s32_rowdot_config s8_s32_rowdot;
    rl_vactivation_config vactivation;
    rl_f32_vexp_config f32_vexp; /* float SOFTMAX's row passes and GELU (f32_vexp.h) */
    /* int32 sums to int8 in TFLite's fixed point (requantize_fixedpoint.h; int8 BATCH_MATMUL, y zero point not 0). */
    rl_s32_s8_requantize_fn s32_s8_requantize_fixedpoint;
    /* int16 (16x8 mode) ADD / SUB, QUANTIZE and table lookups (s16_velementwise.h) */
    rl_s16_velementwise_config s16_velementwise;
} rl_kernel_table;

/* The whole-op references (the scalar specification of each op) with the micro-kernels of `isa`. */
rl_kernel_table rl_kernel_table_for(rl_isa isa);

/* Scalar references (the specification). */
void f32_conv2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                    float *output);
void f32_dwconv2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                      float *output);
void f32_maxpool2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                       float *output);
void f32_avgpool2d_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                       float *output);
/* n uniform floats in [0, 1) from Philox4x32-10 (TFLite's RANDOM_UNIFORM stream); advances the counter. */
void f32_random_uniform_ref(const uint32_t key[2], uint32_t counter[4], int64_t n, float *out);
void f32_fully_connected_ref(int64_t batch, int32_t in_depth, int32_t units, const float *input,
                             const float *weights, const float *bias, float act_min, float act_max,
                             float *output);
/* batches: the broadcast batch dimensions, strides counted in matrices. */
void f32_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                          int32_t adj_y, const float *a, const float *b, float *out);
/* int8: NHWC int8 activations, int8 filters (OHWI, [1, H, W, C * multiplier], [units, depth]), int32 bias
 * (NULL when absent); each accumulates in 32 bits and requantizes with rl_requantize_fp32. */
void s8_conv2d_ref(const rl_window_geometry *g, const rl_s8_requantization *rq, const int8_t *input,
                   const int8_t *filter, const int32_t *bias, int8_t *output);
void s8_dwconv2d_ref(const rl_window_geometry *g, const rl_s8_requantization *rq, const int8_t *input,
                     const int8_t *filter, const int32_t *bias, int8_t *output);
void s8_fully_connected_ref(int64_t batch, int32_t in_depth, int32_t units, const rl_s8_requantization *rq,
                            const int8_t *input, const int8_t *weights, const int32_t *bias, int8_t *output);
/* TFLite's 16x8 BATCH_MATMUL: int16 x, int8 (b_is_int8) or int16 y, zero points 0 (s16_batch_matmul_ref.c). */
void s16_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x, int32_t adj_y,
                          int32_t multiplier, int32_t shift, const int16_t *a, const void *b, int32_t b_is_int8,
                          int16_t *out);
void s8_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                         int32_t adj_y, const rl_s8_batch_matmul_params *p, const int8_t *a, const int8_t *b,
                         int8_t *out);
/* Hybrid (dynamic-range) fully connected: float input and output, int8 weights with one scale per unit.
 * Each input row is quantized to int8 asymmetrically (range widened to hold 0, zero point nudged, ties to
 * even), as XNNPACK's qd8 path does whatever asymmetric_quantize_inputs says; the
 * integer dot product is scaled back by row scale * weight scale and the bias added. row_scratch holds
 * in_depth bytes. */
void qd8_f32_qc8w_fully_connected_ref(int64_t batch, int32_t in_depth, int32_t units, const float *input,
                                      const int8_t *weights, const float *weight_scales, const float *bias,
                                      float act_min, float act_max, int8_t *row_scratch, float *output);
/* XNNPACK's qd8 quantization of n floats (stride apart) to int8: asymmetric, the range widened to hold 0,
 * ties to even. Returns the scale; *zero_point gets the zero point. */
float f32_qd8_quantize_ref(int64_t n, int64_t stride, const float *x, int8_t *q, int32_t *zero_point);
/* TFLite's AsymmetricQuantizeFloats of n contiguous floats (its hybrid depthwise convolution's images). */
float f32_qs8_asymmetric_quantize_tflite_ref(int64_t n, const float *x, int8_t *q, int32_t *zero_point);
/* Hybrid convolutions: each image quantized with f32_qd8_quantize_ref (image_scratch holds H * W * C bytes),
 * int8 filters (OHWI, [1, H, W, C * multiplier]) with one scale per output channel, float bias (or NULL),
 * g's float activation range. */
void qd8_f32_qc8w_conv2d_ref(const rl_window_geometry *g, const float *input, const int8_t *filter,
                             const float *filter_scales, const float *bias, int8_t *image_scratch, float *output);
void qd8_f32_qc8w_dwconv2d_ref(const rl_window_geometry *g, const float *input, const int8_t *filter,
                               const float *filter_scales, const float *bias, int8_t *image_scratch, float *output);
/* Hybrid batch matmul: each row of x quantized with f32_qd8_quantize_ref (row_scratch holds k bytes); y's
 * scale is b_scales[0], or b_scales[j] for output column j when per_column. */
void qd8_f32_qc8w_batch_matmul_ref(const rl_broadcast *batches, int32_t m, int32_t k, int32_t n, int32_t adj_x,
                                   int32_t adj_y, const float *a, const int8_t *b, const float *b_scales,
                                   int32_t per_column, int8_t *row_scratch, float *out);
/* QUANTIZE and DEQUANTIZE, as XNNPACK's f32-qs8, qs8 and qs8-f32 conversions (what LiteRT's default
 * Interpreter runs): round(x * inverse_scale) with ties to even, plus the zero point; int8 to int8 through
 * a Q8 fixed-point multiplier, round(ratio * 256), ties toward +infinity; (x - zero_point) * scale in float. */
void f32_s8_quantize_ref(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y);
/* QUANTIZE per channel (LiteRT runs TFLite's reference kernel: x / scale rounded half away from zero): one row of
 * [channels, inner] elements, channel c's `inner` elements converted with scales[c] and zero_points[c]. */
void f32_qc8_quantize_ref(size_t channels, size_t inner, const float *scales, const int32_t *zero_points,
                          const float *x, int8_t *y);
void s8_requantize_ref(int64_t count, int32_t input_zero_point, int32_t multiplier_q8, int32_t output_zero_point,
                       const int8_t *x, int8_t *y);
void f16_f32_convert_ref(int64_t count, const uint16_t *x, float *y);
void f32_binary_ref(rl_binary_op op, const rl_broadcast *bc, const float *a, const float *b, float *out);
void f32_compare_ref(rl_compare_op op, const rl_broadcast *bc, const float *a, const float *b, uint8_t *out);
void s32_binary_ref(rl_binary_op op, const rl_broadcast *bc, const int32_t *a, const int32_t *b, int32_t *out);
void f32_unary_ref(rl_unary_op op, int64_t count, const float *x, float *y);
void f32_leaky_relu_ref(int64_t count, float alpha, const float *x, float *y);
void f32_softmax_ref(int64_t rows, int32_t depth, float beta, const float *x, float *y);
void f32_log_softmax_ref(int64_t rows, int32_t depth, const float *x, float *y);
void f32_gemv_eigen_ref(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w,
                        const float *bias, float *y, float act_min, float act_max);
/* The same bits on SSE packets (x86 with AVX2 and up). */
void f32_log_softmax__avx2(int64_t rows, int32_t depth, const float *x, float *y);
void f32_gemv_eigen__avx2(size_t n_total, size_t n0, size_t nc, size_t kc, const float *x, const float *w,
                          const float *bias, float *y, float act_min, float act_max);
void f32_reduce_sum_ref(const int64_t *dims, const int32_t *reduced, float divisor, const float *x, float *y,
                        int64_t out_count);

/* A reduction's output strides over the input's rank-8 axes (0 on reduced axes); returns the input's count. */
static inline int64_t rl_reduce_output_strides(const int64_t *dims, const int32_t *reduced, int64_t *out_strides) {
    int64_t stride = 1, in_count = 1;
    for (int d = 7; d >= 0; --d) {
        out_strides[d] = reduced[d] ? 0 : stride;
        if (!reduced[d]) stride *= dims[d];
        in_count *= dims[d];
    }
    return in_count;
}

/* Sums over the middle axis of [reduced, channels] (MEAN/SUM over a block of adjacent axes, e.g. a global
 * average pool): the reduce ops' driver walks the outer axis. */
void f32_rdsum__scalar(size_t reduced, size_t channels, size_t row_stride, const float *x, float *y);
void f32_rdsum__avx2(size_t reduced, size_t channels, size_t row_stride, const float *x, float *y);
void f32_rdsum__neon(size_t reduced, size_t channels, size_t row_stride, const float *x, float *y);
void qs8_rdsum__scalar(size_t reduced, size_t channels, const int8_t *x, int32_t *acc);
typedef void (*rl_qs8_rdsum_fn)(size_t reduced, size_t channels, const int8_t *x, int32_t *acc);

/* int8 MAXIMUM / MINIMUM on raw values, operands and output quantized alike (s8_minmax_ref.c). */
void s8_minmax_ref(int32_t take_max, const rl_broadcast *bc, const int8_t *a, const int8_t *b, int8_t *out);

/* REDUCE_MAX / REDUCE_MIN of float32 (is_int8 0) or int8 values (xx_reduce_minmax_ref.c). */
void xx_reduce_minmax_ref(int32_t is_int8, int32_t take_max, const int64_t *dims, const int32_t *reduced, const void *x,
                          void *y, int64_t out_count);

/* Any-dtype data movement (element size in bytes). */
void xx_transpose_ref(int32_t rank, const int64_t *in_dims, const int32_t *perm, size_t elem, const void *x,
                      void *y);
void x32_transpose_2d__scalar(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y);
#if defined(__x86_64__) || defined(_M_X64)
void x32_transpose_2d__avx2(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y);
#endif
#if RL_HAVE_NEON_KERNELS
void x32_transpose_2d__neon(int64_t rows, int64_t cols, int64_t in_step, int64_t out_step, const void *x, void *y);
#endif
/* The same result, the permutation simplified and copied in runs or tiles (TRANSPOSE's eval); 4-byte
 * elements' 2-D transposes on x32_transpose_2d. Element sizes 1, 2, 4 and 8; others go to the reference. */
void xx_transpose__scalar(int32_t rank, const int64_t *in_dims, const int32_t *perm, size_t elem, const void *x,
                          void *y, rl_x32_transpose_2d_fn x32_transpose_2d);
/* The simplified permutation (size-1 axes dropped, neighbours merged): the output's axes, their input strides,
 * and how the copy runs, so that a driver can split the output's outermost axis, dims[0], across threads. */
typedef struct {
    int32_t rank;           /* merged output axes, at least 1 (count > 0); 1: the input's own order */
    int32_t inner, moved;   /* rank - 1 when the last axis is contiguous in both, else -1; the moved innermost */
    size_t elem;
    int64_t count;
    int64_t dims[8], strides[8], out_strides[8];
} rl_transpose_layout;
void xx_transpose_layout(int32_t rank, const int64_t *in_dims, const int32_t *perm, size_t elem,
                         rl_transpose_layout *t);
/* Output indices [first, first + count) of the layout's outermost axis (elements of 1, 2, 4 or 8 bytes). */
void xx_transpose_range__scalar(const rl_transpose_layout *t, int64_t first, int64_t count, const void *x, void *y,
                                rl_x32_transpose_2d_fn x32_transpose_2d);
void xx_strided_slice_ref(int32_t rank, const int64_t *in_dims, const int32_t *begin, const int32_t *stride,
                          const int64_t *out_dims, size_t elem, const void *x, void *y);
void xx_pad_ref(int32_t rank, const int64_t *in_dims, const int32_t *before, const int64_t *out_dims,
                size_t elem, const void *pad_value, const void *x, void *y);
/* Returns 0, or 1 when an index is outside [0, axis_size). */
int xx_gather_ref(int64_t outer, int64_t axis_size, int64_t inner, int64_t n_indices, const void *indices,
                  int32_t indices_are_int64, size_t elem, const void *x, void *y);
/* Converts count elements between numeric dtypes (rl_dtype codes); 0, or 1 for an unsupported pair. */
int xx_cast_ref(int32_t from, int32_t to, int64_t count, const void *x, void *y);
/* Next index of an n-d counter in row-major order; returns 0 when it wraps. */
int rl_next_index(int32_t rank, const int64_t *dims, int64_t *index);
/* dst[j] = src[first + j * step] for j < row, elements of elem bytes (step may be negative; 1 is one memcpy). */
void rl_copy_strided_row(char *dst, const char *src, int64_t first, int64_t row, int64_t step, size_t elem);

/* Resizing, NHWC float. */
void f32_resize_bilinear_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h,
                             int32_t out_w, int32_t align_corners, int32_t half_pixel_centers, const float *x,
                             float *y);
void f32_resize_nearest_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h,
                            int32_t out_w, int32_t align_corners, int32_t half_pixel_centers, const float *x,
                            float *y);
void xx_ibilinear_coordinate(int32_t o, int32_t in, int32_t out, int32_t align_corners, int32_t half_pixel_centers,
                             rl_ibilinear_tap *tap);
void f32_ibilinear__scalar(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                           const rl_ibilinear_tap *rows, const rl_ibilinear_tap *cols, const float *x, float *y);
void s8_ibilinear__scalar(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                          const rl_ibilinear_tap *cols, int32_t wv, int8_t *y);
#if defined(__x86_64__) || defined(_M_X64)
void s8_ibilinear__avx2(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                        const rl_ibilinear_tap *cols, int32_t wv, int8_t *y);
#endif
void s8_ibilinear__neon(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                        const rl_ibilinear_tap *cols, int32_t wv, int8_t *y);

/* int8 kernels: everything derived from scales is computed by prepare and passed in a params struct. */
typedef struct rl_s8_binary_params {
    rl_s8_binary_kind kind;
    int32_t a_zero_point, b_zero_point, output_zero_point;
    /* TFLite: inputs shifted left, each scaled to twice the larger input scale, the sum to the output. */
    int32_t left_shift, a_multiplier, a_shift, b_multiplier, b_shift, output_multiplier, output_shift;
    /* XNNPACK ADD/SUB: (bias + a * a_multiplier + b * b_multiplier) >> shift, bias holding rounding and
     * zero points; MUL: the float product-to-output scale. */
    int32_t xnn_a_multiplier, xnn_b_multiplier, xnn_shift, xnn_bias;
    float scale;
    int32_t act_min, act_max; /* in the output's integers */
} rl_s8_binary_params;

void s8_binary_ref(const rl_broadcast *bc, const rl_s8_binary_params *p, const int8_t *a, const int8_t *b,
                   int8_t *out);
/* The rl_qs8_vbinary_fn micro-kernels; which path gets which: qs8_configs.c. */
void qs8_vadd_minmax__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vaddc_minmax__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vmul_minmax_fp32__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                  const rl_s8_binary_params *p);
void qs8_vmulc_minmax_fp32__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                   const rl_s8_binary_params *p);
#if defined(__x86_64__) || defined(_M_X64)
void qs8_vadd_minmax__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vaddc_minmax__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vmul_minmax_fp32__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vmulc_minmax_fp32__avx2(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                 const rl_s8_binary_params *p);
void qs8_vadd_minmax__avx512(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vaddc_minmax__avx512(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_rdsum__avx2(size_t reduced, size_t channels, const int8_t *x, int32_t *acc);
#endif
#if RL_HAVE_NEON_KERNELS
void qs8_vadd_minmax__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vaddc_minmax__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vmul_minmax_fp32__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out, const rl_s8_binary_params *p);
void qs8_vmulc_minmax_fp32__neon(size_t n, const int8_t *a, const int8_t *b, int8_t *out,
                                 const rl_s8_binary_params *p);
void s8_lut__neon(int64_t count, const int8_t *table, const int8_t *x, int8_t *y);
void qs8_rdsum__neon(size_t reduced, size_t channels, const int8_t *x, int32_t *acc);
#endif
/* table indexed by the input's bits as uint8 (x = -128 at index 128). */
typedef void (*rl_s8_lut_fn)(int64_t count, const int8_t *table, const int8_t *x, int8_t *y);
void s8_lut_ref(int64_t count, const int8_t *table, const int8_t *x, int8_t *y);
void s8_lut__avx2(int64_t count, const int8_t *table, const int8_t *x, int8_t *y); /* x86-64 builds */
/* int8 pooling, NHWC; act_min/act_max clamp in the output's integers (scales equal in and out). */
void s8_maxpool2d_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int8_t *x, int8_t *y);
void s8_avgpool2d_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int8_t *x, int8_t *y);
void s8_softmax_ref(int64_t rows, int32_t depth, const float *exp_table, float output_scale, int32_t output_zero_point,
                    const int8_t *x, int8_t *y);
#if defined(__x86_64__) || defined(_M_X64)
void s8_softmax__avx2(int64_t rows, int32_t depth, const float *exp_table, float output_scale, int32_t output_zero_point,
                      const int8_t *x, int8_t *y); /* the same bits, eight outputs a step */
#endif
/* int8 LOG_SOFTMAX (s8_log_softmax_ref.c), TFLite's optimized float-table arithmetic; exp_table as SOFTMAX's. */
void s8_log_softmax_ref(int64_t rows, int32_t depth, const float *exp_table, float input_scale, float output_scale,
                        int32_t output_zero_point, const int8_t *x, int8_t *y);
/* int8 MEAN and SUM (s8_reduce_ref.c), XNNPACK's arithmetic with constants from prepare. */
typedef struct rl_s8_reduce_params {
    float scale; /* input_scale / output_scale, for MEAN times 1 / n (float32 products) */
    float bias;  /* output_zero_point - (n * input_zero_point) * scale in float32, n elements summed per output */
} rl_s8_reduce_params;
void s8_reduce_ref(const int64_t *dims, const int32_t *reduced, const rl_s8_reduce_params *p, const int8_t *x,
                   int32_t *acc, int8_t *y, int64_t out_count);
/* One int32 sum to int8, as above. */
static inline int8_t rl_s8_reduce_output(int32_t acc, const rl_s8_reduce_params *p) {
    float v = (float)acc * p->scale;
    v = v + p->bias; /* two float32 roundings, as XNNPACK (no fused multiply-add) */
    v = v < -128.0f ? -128.0f : (v > 127.0f ? 127.0f : v);
    return (int8_t)nearbyintf(v); /* the default rounding mode: to nearest, ties to even */
}
/* int8 resizing, NHWC, output quantized as the input (s8_resize_ref.c). */
void s8_resize_bilinear_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                            int32_t align_corners, int32_t half_pixel_centers, const int8_t *x, int8_t *y);
void s8_resize_nearest_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                           int32_t align_corners, int32_t half_pixel_centers, const int8_t *x, int8_t *y);

/* ---- issue 11's widened op set: reference kernels (the specification; one family per file) ---- */
typedef enum { RL_MATH_POW, RL_MATH_FLOOR_DIV, RL_MATH_FLOOR_MOD } rl_math_binary_op;
typedef enum {
    RL_MATH_FLOOR, RL_MATH_CEIL, RL_MATH_ROUND, RL_MATH_ELU, RL_MATH_GELU, RL_MATH_GELU_TANH, RL_MATH_RELU_N1_TO_1
} rl_math_unary_op;
void xx_tile_ref(int32_t rank, const int64_t *in_dims, const int64_t *multiples, size_t elem, const void *x, void *y);
void xx_broadcast_to_ref(const int64_t *out_dims, const int64_t *strides, size_t elem, const void *x, void *y);
int xx_gather_nd_ref(int64_t n_slices, int32_t index_depth, const int64_t *params_dims, int64_t slice_elems,
                     const void *indices, int32_t indices_are_int64, size_t elem, const void *params, void *y);
void xx_arg_minmax_ref(int32_t dtype, int32_t take_max, int64_t outer, int64_t axis_size, int64_t inner, const void *x,
                       int32_t out_is_int64, void *y);
/* SUM, MEAN, REDUCE_MAX, REDUCE_MIN of plain int32 / int64 values (xx_reduce_int_ref.c); scratch holds
 * RL_INT_REDUCE_SCRATCH bytes per output element. */
typedef enum { RL_INT_REDUCE_SUM, RL_INT_REDUCE_MEAN, RL_INT_REDUCE_MAX, RL_INT_REDUCE_MIN } rl_int_reduce_op;
#define RL_INT_REDUCE_SCRATCH (2 * sizeof(int64_t))
void xx_reduce_int_ref(int32_t is_int64, rl_int_reduce_op op, const int64_t *dims, const int32_t *reduced,
                       const void *x, void *y, int64_t out_count, void *scratch);
void xx_reduce_prod_any_ref(int32_t dtype, int32_t bool_all, const int64_t *dims, const int32_t *reduced,
                            const void *x, void *y, int64_t out_count);
void b8_logical_ref(int32_t is_or, const rl_broadcast *bc, const uint8_t *a, const uint8_t *b, uint8_t *out);
void b8_logical_not_ref(int64_t count, const uint8_t *x, uint8_t *y);
void f32_binary_math_ref(rl_math_binary_op op, const rl_broadcast *bc, const float *a, const float *b, float *out);
int s32_binary_math_ref(rl_math_binary_op op, const rl_broadcast *bc, const int32_t *a, const int32_t *b, int32_t *out);
void f32_unary_math_ref(rl_math_unary_op op, int64_t count, const float *x, float *y);
void f32_l2_normalize_ref(int64_t rows, int64_t depth, float act_min, float act_max, const float *x, float *y);
/* int8 L2_NORMALIZATION (output scale 1/128, zero point 0) and REDUCE_PROD, as LiteRT's builtin kernels. */
void s8_l2_normalize_ref(int64_t rows, int64_t depth, int32_t input_zero_point, const int8_t *x, int8_t *y);
/* TFLite's GetInvSqrtQuantizedMultiplierExp (reverse shift -1): 1 / sqrt(input) = multiplier * 2^shift. */
void s8_inv_sqrt_multiplier(int32_t input, int32_t *multiplier, int32_t *shift);
typedef struct {
    int32_t input_zero_point, output_zero_point;
    int32_t multiplier, shift; /* each step's input_scale / output_scale^(1/n), TFLite's QuantizeMultiplier */
} rl_s8_prod_params;
void s8_reduce_prod_ref(const int64_t *dims, const int32_t *reduced, const rl_s8_prod_params *p, const int8_t *x,
                        int8_t *y);
void f32_lrn_ref(int64_t rows, int32_t depth, int32_t radius, float bias, float alpha, float beta, const float *x,
                 float *y);
void xx_space_batch_ref(int32_t to_batch, int32_t m, int64_t in_batch, const int64_t *in_spatial,
                        int64_t out_batch, const int64_t *out_spatial, const int32_t *block, const int32_t *pad_before,
                        size_t inner_bytes, const void *pad_value, const void *x, void *y);
void xx_mirror_pad_ref(int32_t rank, const int64_t *in_dims, const int32_t *before, const int64_t *out_dims,
                       int32_t symmetric, size_t elem, const void *x, void *y);
void xx_cumsum_ref(int32_t dtype, int64_t outer, int64_t axis_size, int64_t inner, int32_t exclusive, int32_t reverse,
                   const void *x, void *y);
void xx_one_hot_ref(int64_t outer, int64_t depth, int64_t inner, const void *indices, int32_t indices_are_int64,
                    size_t elem, const void *on_value, const void *off_value, void *y);
/* int8 PRELU (s8_prelu_ref.c) and comparisons (s8_compare_ref.c): parameters from prepare. */
typedef struct {
    int32_t input_zero_point, alpha_zero_point, output_zero_point;
    int32_t positive_multiplier, positive_shift, negative_multiplier, negative_shift;
} rl_s8_prelu_params;
typedef struct {
    int32_t zero_point[2], multiplier[2], shift[2];
} rl_s8_compare_params;
void s8_prelu_ref(const rl_broadcast *bc, const rl_s8_prelu_params *p, const int8_t *x, const int8_t *alpha, int8_t *y);
/* int8 ABS (s8_abs_ref.c) and SQUARED_DIFFERENCE (s8_squared_difference_ref.c), TFLite's builtin arithmetic. */
typedef struct {
    int32_t input_zero_point, output_zero_point;
    int32_t rescale, multiplier, shift; /* rescale: the scales differ (compared in float, as TFLite's) */
} rl_s8_abs_params;
typedef struct {
    int32_t zero_point[2], multiplier[2], shift[2]; /* each input's share of twice the larger input scale */
    int32_t output_zero_point, output_multiplier, output_shift;
} rl_s8_squared_difference_params;
typedef struct {
    int32_t zero_point[2];
    int32_t output_zero_point, output_multiplier, output_shift;
    int32_t act_min, act_max;
} rl_s8_div_params;
void s8_div_ref(const rl_broadcast *bc, const rl_s8_div_params *p, const int8_t *a, const int8_t *b, int8_t *y);
/* One quotient of that arithmetic (operands less their zero points, divisor nonzero), clamped to the activation
 * range: what the int16 DIV (s16_div_ref.c) shares. */
int32_t rl_tflite_quantized_divide(int32_t n, int32_t d, const rl_s8_div_params *p);
void s8_abs_ref(int64_t count, const rl_s8_abs_params *p, const int8_t *x, int8_t *y);
void s8_squared_difference_ref(const rl_broadcast *bc, const rl_s8_squared_difference_params *p, const int8_t *a,
                               const int8_t *b, int8_t *y);
/* Rows of int8 SQUARED_DIFFERENCE (s8_vsqrdiff__scalar.c: two rows; s8_vsqrdiffc__scalar.c: b one element):
 * scaled[i][v + 128] is input i's value v less its zero point, shifted left by 7 and scaled, as the reference
 * computes it. Exchanging the tables exchanges the operands (the square does not see the order). */
typedef struct {
    const int32_t *scaled[2];
    int32_t output_zero_point, output_multiplier, output_shift;
} rl_s8_sqrdiff_row_params;
void s8_vsqrdiff__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *y, const rl_s8_sqrdiff_row_params *p);
void s8_vsqrdiffc__scalar(size_t n, const int8_t *a, const int8_t *b, int8_t *y, const rl_s8_sqrdiff_row_params *p);
void s8_compare_ref(rl_compare_op op, const rl_broadcast *bc, const rl_s8_compare_params *p, const int8_t *a,
                    const int8_t *b, uint8_t *out);
void xx_compare_int_ref(rl_compare_op op, int32_t is_int64, const rl_broadcast *bc, const void *a, const void *b,
                        uint8_t *out);
void xx_reverse_ref(const int64_t *dims, const int32_t *reversed, size_t elem, const void *x, void *y);
void xx_dynamic_update_slice_ref(const int64_t *dims, const int64_t *update_dims, const int64_t *starts, size_t elem,
                                 const void *x, const void *update, void *y);
void f32_rfft2d_ref(int64_t batches, int32_t in_h, int32_t in_w, int32_t fft_h, int32_t fft_w, const double *twiddle_h,
                    const double *twiddle_w, double *rows, const float *x, float *y);
void f32_deconv_bias_ref(const rl_window_geometry *g, const float *input, const float *filter, const float *bias,
                         float *output);
/* One float32 LSTM step (f32_lstm_step.c): sizes, options, and the weights (NULL where the model has none). */
typedef struct {
    int32_t batch, n_input, n_cell, n_output, activation;
    float cell_clip, proj_clip;
} rl_lstm_dims;
typedef struct {
    const float *input_x, *forget_x, *cell_x, *output_x, *input_h, *forget_h, *cell_h, *output_h;
    const float *input_peephole, *forget_peephole, *output_peephole;
    const float *input_bias, *forget_bias, *cell_bias, *output_bias, *projection, *projection_bias;
    const float *input_norm, *forget_norm, *cell_norm, *output_norm; /* layer norm coefficients, or NULL */
} rl_lstm_weights;
/* The micro-kernels an LSTM step runs its gates on, the plan's (the scalar ones make the step TFLite's
 * reference arithmetic, bit for bit). */
typedef struct {
    rl_f32_rowdot_fn f32_rowdot;
    rl_s8_s32_rowdot_fn s8_s32_rowdot;
    rl_vactivation_config activation;
    rl_f32_quantize_fn quantize_asymmetric; /* the hybrid's inputs: TFLite's AsymmetricQuantizeFloats (qd8_gemm.h) */
} rl_lstm_kernels;
/* narrow_weights: every int8 weight the step multiplies is in [-127, 127] (see rl_s8_s32_rowdot_config) */
rl_lstm_kernels rl_lstm_kernels_of(const rl_kernel_table *table, int narrow_weights);
/* scratch: 5 * batch * n_cell floats */
void f32_lstm_step(const rl_lstm_kernels *k, const rl_lstm_dims *d, const rl_lstm_weights *w, const float *x, float *h,
                   float *cell, float *scratch);
/* ---- end of issue 11's reference kernels ---- */

#endif
