/* f32_vactivation.h — float32 logistic and tanh over a run of values, the gate activations of the float and
 * hybrid LSTMs (ops/lstm.c, ops/lstm_hybrid.c; TFLite applies them a gate's row at a time). The scalar
 * kernels are the specification, libm's 1 / (1 + expf(-x)) and tanhf, the LSTM references' arithmetic; the
 * SIMD kernels compute e^z from a degree-5 (logistic) or degree-7 (tanh, as e^z - 1, exact near 0) polynomial
 * on z reduced by ln 2 and agree with them within a few ulps (the kernel tester's tolerance is 1e-6 relative),
 * well inside the 1e-5 a float model keeps with LiteRT. y may be x. */
#ifndef RILLET_F32_VACTIVATION_H
#define RILLET_F32_VACTIVATION_H

#include <stddef.h>

#include "isa.h"

typedef void (*rl_f32_vunary_fn)(size_t n, const float *x, float *y);

typedef struct {
    rl_f32_vunary_fn sigmoid, tanh;
} rl_f32_vactivation_config;

/* AVX2's on every x86 SIMD path, else scalar (f32_vactivation_configs.c). */
rl_f32_vactivation_config rl_f32_vactivation_config_for(rl_isa isa);

void f32_vsigmoid__scalar(size_t n, const float *x, float *y);
void f32_vtanh__scalar(size_t n, const float *x, float *y);
#if defined(__x86_64__) || defined(_M_X64)
void f32_vsigmoid__avx2(size_t n, const float *x, float *y);
void f32_vtanh__avx2(size_t n, const float *x, float *y);
#endif

#endif
