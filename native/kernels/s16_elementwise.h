/* s16_elementwise.h — scalar kernels of TFLite's 16x8 mode (int16 activations, zero point 0) for the ops that are
 * not GEMMs: conversions, element-wise arithmetic, activations, SOFTMAX, reductions and pooling. XNNPACK takes
 * no int16 op, so LiteRT's default Interpreter runs its builtin kernels; each kernel here gives their bits
 * (its file says which arithmetic). */
#ifndef RILLET_S16_ELEMENTWISE_H
#define RILLET_S16_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "kernels.h"
#include "s16_velementwise.h"

/* int16 or int8 to int16 or int8 with TFLite's multiplier and shift (s16_quantize_ref.c). */
void s16_requantize_ref(int64_t n, int32_t x_is_int16, int32_t y_is_int16, int32_t x_zero_point, int32_t multiplier,
                        int32_t shift, int32_t y_zero_point, const void *x, void *y);
/* int16 to float: scale * (x - zero_point). */
void s16_f32_dequantize_ref(int64_t n, float scale, int32_t zero_point, const int16_t *x, float *y);

/* Element-wise binary int16 arithmetic over broadcast shapes (s16_binary_ref.c; rl_s16_binary_params in
 * s16_velementwise.h). */
void s16_binary_ref(const rl_s16_binary_params *p, const rl_broadcast *bc, const int16_t *a, const int16_t *b,
                    int16_t *out);
/* FLOOR_DIV (mod 0) and FLOOR_MOD (mod 1) on raw int16 values; 1 at a zero divisor (s16_binary_ref.c). */
int s16_floor_div_mod_ref(int32_t mod, const rl_broadcast *bc, const int16_t *a, const int16_t *b, int16_t *out);

/* DIV (s16_div_ref.c), on the int8 DIV's parameters with int16's range. */
void s16_div_ref(const rl_broadcast *bc, const rl_s8_div_params *p, const int16_t *a, const int16_t *b, int16_t *y);

/* PRELU (int8 alpha) and comparisons (s16_prelu_compare_ref.c). */
typedef struct {
    int32_t pos_multiplier, pos_shift, neg_multiplier, neg_shift, alpha_zero_point;
} rl_s16_prelu_params;
void s16_prelu_ref(const rl_s16_prelu_params *p, const rl_broadcast *bc, const int16_t *x, const int8_t *alpha,
                   int16_t *out);
typedef struct {
    int32_t scaled; /* EQUAL / NOT_EQUAL of quantized operands */
    int32_t a_multiplier, a_shift, b_multiplier, b_shift;
} rl_s16_compare_params;
void s16_compare_ref(rl_compare_op op, const rl_s16_compare_params *p, const rl_broadcast *bc, const int16_t *a,
                     const int16_t *b, uint8_t *out);

/* The 513-entry int16 tables of TFLite's LUTPopulate (in double) and their interpolating lookup
 * (s16_lut_ref.c). */
#define RL_S16_LUT_SIZE 513
void s16_lut_populate(double input_scale, int32_t input_zero_point, double output_scale, int32_t output_zero_point,
                      double (*transform)(double), int16_t *lut);
/* The same in float (LUTPopulate<int16_t> with a float transform: EXP, LOG, RSQRT, GELU); params is passed to
 * the transform. */
void s16_lut_populate_f32(float input_scale, float output_scale, float (*transform)(float, const void *),
                          const void *params, int16_t *lut);
int16_t rl_s16_lut_lookup(int16_t value, const int16_t *lut);
void s16_lut_ref(int64_t n, const int16_t *lut, const int16_t *x, int16_t *y);

/* SOFTMAX over rows of `depth` (s16_softmax_ref.c). */
typedef struct {
    int32_t input_multiplier, input_shift;
    int16_t exp_lut[RL_S16_LUT_SIZE];
    int16_t one_over_one_plus_x_lut[RL_S16_LUT_SIZE];
} rl_s16_softmax_params;
void s16_softmax_ref(const rl_s16_softmax_params *p, int64_t rows, int32_t depth, const int16_t *x, int16_t *y);

/* LOGISTIC and TANH of a general input scale: TFLite's 256-entry sigmoid table with interpolation
 * (s16_sigmoid_table_ref.c). input_multiplier 0: a power-of-two scale taken as 3 << input_shift. */
void s16_logistic_table_ref(int64_t n, int32_t input_multiplier, int32_t input_shift, const int16_t *x, int16_t *y);
void s16_tanh_table_ref(int64_t n, int32_t input_multiplier, int32_t input_shift, const int16_t *x, int16_t *y);

/* RELU, RELU6, LEAKY_RELU, PRELU-like rescales (s16_relu_ref.c): x >= 0 scaled by (pos_multiplier, pos_shift),
 * x < 0 by (neg_multiplier, neg_shift), then clamped to [lo, hi]. */
void s16_relu_ref(int64_t n, int32_t pos_multiplier, int32_t pos_shift, int32_t neg_multiplier, int32_t neg_shift,
                  int32_t lo, int32_t hi, const int16_t *x, int16_t *y);

/* ABS, NEG and SQRT (s16_unary_ref.c). s16_sqrt_ref returns the index of the first negative input (which
 * TFLite refuses at invoke), -1 when there is none. */
void s16_abs_ref(int64_t n, int32_t rescale, int32_t multiplier, int32_t shift, const int16_t *x, int16_t *y);
void s16_neg_ref(int64_t n, const int16_t *x, int16_t *y);
int64_t s16_sqrt_ref(int64_t n, float input_scale, float output_scale, const int16_t *x, int16_t *y);

/* MEAN, SUM, REDUCE_MAX and REDUCE_MIN over the axes marked in reduce_axes of an 8-D view (s16_reduce_ref.c):
 * int32 sums into `sums` (one per output), then rescaled. */
typedef enum { RL_S16_MEAN, RL_S16_SUM, RL_S16_REDUCE_MAX, RL_S16_REDUCE_MIN } rl_s16_reduce_kind;
typedef struct {
    rl_s16_reduce_kind kind;
    int32_t multiplier, shift; /* MEAN: TFLite's multiplier with 1/count folded in */
    float scale;               /* SUM: input scale / output scale, in float */
} rl_s16_reduce_params;
void s16_reduce_ref(const rl_s16_reduce_params *p, const int64_t *dims, const int32_t *reduce_axes, int64_t count,
                    const int16_t *x, int32_t *sums, int16_t *y);

/* REDUCE_PROD over the marked axes of an 8-D view, rank 8 row-major (s16_reduce_ref.c). */
void s16_reduce_prod_ref(const int64_t *dims, const int32_t *reduced, int32_t multiplier, int32_t shift,
                         const int16_t *x, int16_t *y);

/* MAX_POOL_2D and AVERAGE_POOL_2D over NHWC int16 (s16_pool_ref.c); act_min/act_max: the fused activation's
 * clamp in the output's integers. */
void s16_maxpool_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int16_t *x, int16_t *y);
void s16_avgpool_ref(const rl_window_geometry *g, int32_t act_min, int32_t act_max, const int16_t *x, int16_t *y);

/* RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR over NHWC (s16_resize_ref.c). */
void s16_resize_bilinear_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                             int32_t align_corners, int32_t half_pixel_centers, const int16_t *x, int16_t *y);
void s16_resize_nearest_ref(int32_t batch, int32_t in_h, int32_t in_w, int32_t channels, int32_t out_h, int32_t out_w,
                            int32_t align_corners, int32_t half_pixel_centers, const int16_t *x, int16_t *y);

#endif
