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
/* The sum of (x[i] - c)^2 over a row, each square rounded to float (XNNPACK's vsqrdiffc, or its vmul of x by
 * itself when c is 0: x - 0 is x, and (-0)^2 is +0) and added in the row sum's order, lane for lane: the bits of
 * rsum over the row of squares that SQUARED_DIFFERENCE(x, c) or MUL(x, x) writes, without writing it (a layer
 * norm's variance, reduce_sumsq.c). */
typedef float (*rl_f32_rsumsqdiff_fn)(size_t n, const float *x, float c);

float f32_rsum__scalar(size_t n, const float *x);
float f32_rsumsqdiff__scalar(size_t n, const float *x, float c);
#if defined(__x86_64__) || defined(_M_X64)
float f32_rsum__avx2(size_t n, const float *x); /* the same bits */
float f32_rsum__avx512(size_t n, const float *x); /* XNNPACK's AVX-512 order */
float f32_rsumsqdiff__avx2(size_t n, const float *x, float c); /* the same bits */
float f32_rsumsqdiff__avx512(size_t n, const float *x, float c); /* f32_rsum__avx512's order */
#endif
#if RL_HAVE_NEON_KERNELS
float f32_rsum__neon(size_t n, const float *x); /* the same bits */
float f32_rsumsqdiff__neon(size_t n, const float *x, float c); /* the same bits */
#endif

#endif
