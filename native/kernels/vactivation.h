/* vactivation.h — the LSTMs' gate activations over a run of values, a gate's row at a time as TFLite applies
 * them. The scalar kernels are the specification.
 *
 * float32 (the float and hybrid LSTMs, ops/lstm.c, ops/lstm_hybrid.c): logistic and tanh, specified as libm's
 * 1 / (1 + expf(-x)) and tanhf, the LSTM references' arithmetic; the SIMD kernels compute e^z from a degree-5
 * (logistic) or degree-7 (tanh, as e^z - 1, exact near 0) polynomial on z reduced by ln 2 and agree with them
 * within a few ulps (the kernel tester's tolerance is 1e-6 relative), well inside the 1e-5 a float model keeps
 * with LiteRT.
 *
 * int16 (the int8 LSTM, ops/lstm_int8.c): gemmlowp's fixed-point logistic of Q3.12 values and tanh of values
 * with integer_bits (0 to 6) integer bits, both to Q0.15, specified by rl_s16_logistic_q3 and rl_s16_tanh
 * (qs8_lstm_activations_ref.c); every path gives their bits.
 *
 * y may be x. */
#ifndef RILLET_VACTIVATION_H
#define RILLET_VACTIVATION_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

typedef void (*rl_f32_vunary_fn)(size_t n, const float *x, float *y);
typedef void (*rl_s16_vsigmoid_fn)(size_t n, const int16_t *x, int16_t *y);
typedef void (*rl_s16_vtanh_fn)(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y);

typedef struct {
    rl_f32_vunary_fn f32_sigmoid, f32_tanh;
    rl_s16_vsigmoid_fn s16_sigmoid;
    rl_s16_vtanh_fn s16_tanh;
} rl_vactivation_config;

/* AVX2's on every x86 SIMD path, NEON's on both Arm paths, else scalar (vactivation_configs.c). */
rl_vactivation_config rl_vactivation_config_for(rl_isa isa);

void f32_vsigmoid__scalar(size_t n, const float *x, float *y);
void f32_vtanh__scalar(size_t n, const float *x, float *y);
void s16_vsigmoid__scalar(size_t n, const int16_t *x, int16_t *y);
void s16_vtanh__scalar(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y);
#if defined(__x86_64__) || defined(_M_X64)
void f32_vsigmoid__avx2(size_t n, const float *x, float *y);
void f32_vtanh__avx2(size_t n, const float *x, float *y);
void s16_vsigmoid__avx2(size_t n, const int16_t *x, int16_t *y);
void s16_vtanh__avx2(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y);
#endif
#if RL_HAVE_NEON_KERNELS
void f32_vsigmoid__neon(size_t n, const float *x, float *y);
void f32_vtanh__neon(size_t n, const float *x, float *y);
void s16_vsigmoid__neon(size_t n, const int16_t *x, int16_t *y);
void s16_vtanh__neon(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y);
#endif

#endif
