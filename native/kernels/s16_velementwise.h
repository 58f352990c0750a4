/* s16_velementwise.h — the int16 (TFLite 16x8 mode) element-wise kernels with SIMD paths, per instruction set:
 * - s16_vaddsub: ADD / SUB of two same-shape int16 runs in TFLite's general arithmetic (each input shifted left
 *   15, scaled by its multiplier below one, summed or subtracted, rescaled, clamped; double rounding, or one
 *   rounding of the inputs in LiteRT's blocks of 16: one_rounding_blocks);
 * - f32_s16_vcvt: QUANTIZE of a whole float tensor to int16 as LiteRT computes it on x86 (its NEON code through
 *   NEON_2_SSE): the first n - n % 8 values times the float reciprocal of the scale, rounded half to even
 *   (NaN and values past int32 become INT32_MIN), plus the zero point wrapping as 32-bit lanes do, clamped; the
 *   last n % 8 divided by the scale in double and rounded half away from zero;
 * - s16_vlut: TFLite's int16 table lookup (a 513-entry table: the top 9 bits of a value pick an entry, the low
 *   7 interpolate to the next, rounded) for EXP, LOG, RSQRT and GELU.
 * The scalar kernels are the specification; native/tests/s16_velementwise_test.c checks every path against them
 * around every tile edge. */
#ifndef RILLET_S16_VELEMENTWISE_H
#define RILLET_S16_VELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

/* Element-wise binary int16 arithmetic (s16_binary_ref.c). */
typedef enum {
    RL_S16_ADD,     /* TFLite's general int16 ADD: both inputs to 2^15 fixed point, sum, rescale */
    RL_S16_SUB,     /* the same, subtracting */
    RL_S16_ADD_POT, /* power-of-two scales: one input shifted right, saturating int16 sum */
    RL_S16_SUB_POT, /* power-of-two scales: one input shifted right, difference clamped */
    RL_S16_MUL,     /* product rescaled by one multiplier */
    RL_S16_MAX,     /* raw values */
    RL_S16_MIN
} rl_s16_binary_kind;

typedef struct {
    rl_s16_binary_kind kind;
    /* LiteRT's same-shape int16 ADD (AddElementwiseInt16 over the whole tensor) rescales each input of the first
     * n - n % 16 values with one rounding (ties up, rl_mul_by_quantized_multiplier_single) and the last n % 16,
     * like every broadcast ADD and every SUB, with TFLite's two: set for a whole tensor's ADD only. */
    int32_t one_rounding_blocks;
    int32_t left_shift;
    int32_t a_multiplier, a_shift, b_multiplier, b_shift;
    int32_t out_multiplier, out_shift;
    int32_t act_min, act_max;
} rl_s16_binary_params;

typedef void (*rl_s16_vaddsub_fn)(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b,
                                  int16_t *y);
typedef void (*rl_f32_s16_vcvt_fn)(size_t n, double scale, int32_t zero_point, const float *x, int16_t *y);

typedef void (*rl_s16_vlut_fn)(size_t n, const int16_t *lut, const int16_t *x, int16_t *y);

typedef struct {
    rl_s16_vaddsub_fn vaddsub;
    rl_f32_s16_vcvt_fn f32_s16_vcvt;
    rl_s16_vlut_fn vlut;
} rl_s16_velementwise_config;

/* AVX2's on every x86 SIMD path, NEON's ADD / SUB and lookup on both Arm paths (QUANTIZE scalar), else scalar
 * (s16_velementwise_configs.c). */
rl_s16_velementwise_config rl_s16_velementwise_config_for(rl_isa isa);

void s16_vaddsub__scalar(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b, int16_t *y);
void f32_s16_vcvt__scalar(size_t n, double scale, int32_t zero_point, const float *x, int16_t *y);
void s16_vlut__scalar(size_t n, const int16_t *lut, const int16_t *x, int16_t *y);
#if defined(__x86_64__) || defined(_M_X64)
void s16_vaddsub__avx2(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b, int16_t *y);
void f32_s16_vcvt__avx2(size_t n, double scale, int32_t zero_point, const float *x, int16_t *y);
void s16_vlut__avx2(size_t n, const int16_t *lut, const int16_t *x, int16_t *y);
#endif
#if RL_HAVE_NEON_KERNELS
void s16_vaddsub__neon(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b, int16_t *y);
void s16_vlut__neon(size_t n, const int16_t *lut, const int16_t *x, int16_t *y);
#endif

#endif
