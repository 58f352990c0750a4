/* requantize_fixedpoint.h — int32 sums to int8 in TFLite's fixed point: rl_mul_by_quantized_multiplier (gemmlowp's
 * double rounding) by a multiplier in [2^30, 2^31) and a shift in [-31, 30], plus the output zero point, clamped to
 * [lo, hi]. What TFLite's builtin int8 kernels compute where LiteRT's XNNPACK delegate declines an op (BATCH_MATMUL
 * with a nonzero y zero point: ops/batch_matmul_int8.c). The scalar kernel is the specification; every path gives
 * its bits for every int32. */
#ifndef RILLET_REQUANTIZE_FIXEDPOINT_H
#define RILLET_REQUANTIZE_FIXEDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "isa.h"

typedef void (*rl_s32_s8_requantize_fn)(size_t n, const int32_t *acc, int32_t multiplier, int32_t shift,
                                        int32_t zero_point, int32_t lo, int32_t hi, int8_t *out);

#define RL_S32_S8_REQUANTIZE_FN(name)                                                                              \
    void name(size_t n, const int32_t *acc, int32_t multiplier, int32_t shift, int32_t zero_point, int32_t lo,     \
              int32_t hi, int8_t *out)

RL_S32_S8_REQUANTIZE_FN(s32_s8_requantize_fixedpoint__scalar);
#if defined(__x86_64__) || defined(_M_X64)
RL_S32_S8_REQUANTIZE_FN(s32_s8_requantize_fixedpoint__avx2);
#endif
#if RL_HAVE_NEON_KERNELS
RL_S32_S8_REQUANTIZE_FN(s32_s8_requantize_fixedpoint__neon);
#endif

/* AVX2's on every x86 SIMD path, NEON's on both Arm paths, else scalar. */
rl_s32_s8_requantize_fn rl_s32_s8_requantize_fixedpoint_for(rl_isa isa);

#endif
