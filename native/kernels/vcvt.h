/* vcvt.h — float32 to int8 conversion micro-kernels (QUANTIZE): y = clamp(x * inverse_scale) rounded to the
 * nearest integer, ties to even, plus the zero point, as f32_s8_quantize_ref (the specification) and XNNPACK's
 * f32-qs8-vcvt, which LiteRT's default Interpreter runs. A NaN goes to the lowest int8. */
#ifndef RILLET_VCVT_H
#define RILLET_VCVT_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

typedef void (*rl_f32_qs8_vcvt_fn)(int64_t count, float inverse_scale, int32_t zero_point, const float *x,
                                   int8_t *y);

#if defined(__x86_64__) || defined(_M_X64)
void f32_qs8_vcvt__avx2(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y);
#endif
#if RL_HAVE_NEON_KERNELS
void f32_qs8_vcvt__neon(int64_t count, float inverse_scale, int32_t zero_point, const float *x, int8_t *y);
#endif

#endif
