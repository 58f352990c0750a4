/* qs8_requantize__scalar.h — gemm.h's fp32 requantization of one int32 sum in portable C: the int32 accumulator
 * to float, times the channel's scale, clamped to [min - zero point, max - zero point] (integers, so clamping
 * before rounding equals clamping after), rounded to nearest with ties to even, plus the zero point.
 *
 * The sum arrives as uint32 because the scalar kernels accumulate modulo 2^32, as XNNPACK does (signed overflow
 * would be undefined). Rounding adds 1.5 * 2^23, after which the float has no fraction bits left (|v| <= 255),
 * and reads the integer from the bits: nearbyintf's result in the default rounding mode without a libm call. */
#ifndef RILLET_QS8_REQUANTIZE_SCALAR_H
#define RILLET_QS8_REQUANTIZE_SCALAR_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gemm.h"

static inline int8_t rl_qs8_requantize_scalar(uint32_t acc, float scale, const rl_qs8_requantization_params *params) {
    float v = (float)(int32_t)acc * scale;
    v = v < params->min_less_zero_point ? params->min_less_zero_point
                                        : (v > params->max_less_zero_point ? params->max_less_zero_point : v);
#if FLT_EVAL_METHOD == 0
    v += 12582912.0f;
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (int8_t)((int32_t)(bits - UINT32_C(0x4B400000)) + params->output_zero_point);
#else
    return (int8_t)((int32_t)nearbyintf(v) + params->output_zero_point);
#endif
}

#endif
