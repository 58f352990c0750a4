/* qs8_qc8w_deconv.h — int8 TRANSPOSE_CONV's micro-kernel (qs8_qc8w_deconv_tap__scalar.c). */
#ifndef RILLET_QS8_QC8W_DECONV_H
#define RILLET_QS8_QC8W_DECONV_H

#include <stddef.h>
#include <stdint.h>

/* acc[o] += sum over k < in_c of (input[k] - input_zero_point) * filter[o * filter_stride + k], for o < out_c:
 * one input pixel through one filter tap into one output pixel's int32 sums (modulo 2^32). */
typedef void (*rl_qs8_qc8w_deconv_tap_fn)(size_t out_c, size_t in_c, const int8_t *input, int32_t input_zero_point,
                                          const int8_t *filter, size_t filter_stride, uint32_t *acc);

void rl_qs8_qc8w_deconv_tap__scalar(size_t out_c, size_t in_c, const int8_t *input, int32_t input_zero_point,
                                    const int8_t *filter, size_t filter_stride, uint32_t *acc);

#endif
