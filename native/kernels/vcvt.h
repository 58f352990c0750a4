/* vcvt.h — conversion micro-kernels between float32 and int8.
 *
 * QUANTIZE, float32 to int8: y = clamp(x * inverse_scale) rounded to the nearest integer, ties to even, plus the
 * zero point, as f32_s8_quantize_ref (the specification) and XNNPACK's f32-qs8-vcvt, which LiteRT's default
 * Interpreter runs. A NaN goes to the lowest int8.
 *
 * DEQUANTIZE, int8 to float32: y = (float)(x - zero_point) * scale, one rounding (the difference converts
 * exactly), so every path gives the scalar kernel's bits. One call covers a run of n elements sharing a scale;
 * ops/quantize.c walks per-channel tensors run by run. */
#ifndef RILLET_VCVT_H
#define RILLET_VCVT_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

typedef void (*rl_f32_qs8_vcvt_fn)(int64_t count, float inverse_scale, int32_t zero_point, const float *x,
                                   int8_t *y);

typedef void (*rl_qs8_f32_vcvt_fn)(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y);
void qs8_f32_vcvt__scalar(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y);

#if defined(__x86_64__) || defined(_M_X64)
void qs8_f32_vcvt__avx2(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y);
void f32_qs8_vcvt__avx2(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y);
#endif
#if RL_HAVE_NEON_KERNELS
void qs8_f32_vcvt__neon(size_t n, float scale, int32_t zero_point, const int8_t *x, float *y);
void f32_qs8_vcvt__neon(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y);
#endif

#endif
