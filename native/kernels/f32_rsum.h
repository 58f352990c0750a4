/* f32_rsum.h — the float32 sum of a contiguous row (MEAN or SUM over the innermost axes), in the order of
 * XNNPACK's AVX rsum kernel (f32_rsum u32_acc4), which LiteRT's default Interpreter delegates those to on an
 * AVX2 CPU; its AVX-512 kernel sums 16 lanes at a time, so there LiteRT's own result differs in the last bits. */
#ifndef RILLET_F32_RSUM_H
#define RILLET_F32_RSUM_H

#include <stddef.h>

float f32_rsum__scalar(size_t n, const float *x);

#endif
