/* f32_rsum.h — the float32 sum of a contiguous row (MEAN or SUM over the innermost axes), in the order of
 * XNNPACK's AVX rsum kernel (f32_rsum u32_acc4), which LiteRT's default Interpreter delegates those to on an
 * AVX2 CPU (the scalar, AVX2 and NEON kernels: the same bits); the AVX-512 path sums in XNNPACK's AVX-512
 * kernel's order (avx512f_u32_acc2, 16 lanes at a time), LiteRT's bits on an AVX-512 CPU and within rounding
 * of the others. */
#ifndef RILLET_F32_RSUM_H
#define RILLET_F32_RSUM_H

#include <stddef.h>

#include "isa.h"

typedef float (*rl_f32_rsum_fn)(size_t n, const float *x);

float f32_rsum__scalar(size_t n, const float *x);
#if defined(__x86_64__) || defined(_M_X64)
float f32_rsum__avx2(size_t n, const float *x); /* the same bits */
float f32_rsum__avx512(size_t n, const float *x); /* XNNPACK's AVX-512 order */
#endif
#if RL_HAVE_NEON_KERNELS
float f32_rsum__neon(size_t n, const float *x); /* the same bits */
#endif

#endif
