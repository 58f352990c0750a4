/* qs8_qc8w_deconv_tap__scalar.c — one input pixel's contribution through one filter tap, portable C.
 *
 * The sums are exact integers, so any order gives TFLite's bits; they wrap modulo 2^32 (as uint32) rather
 * than overflow, which would be undefined behaviour on a hostile file. */
#include "qs8_qc8w_deconv.h"

void rl_qs8_qc8w_deconv_tap__scalar(size_t out_c, size_t in_c, const int8_t *input, int32_t input_zero_point,
                                    const int8_t *filter, size_t filter_stride, uint32_t *acc) {
    for (size_t o = 0; o < out_c; ++o) {
        const int8_t *w = filter + o * filter_stride;
        uint32_t sum = 0;
        for (size_t k = 0; k < in_c; ++k) sum += (uint32_t)(((int32_t)input[k] - input_zero_point) * (int32_t)w[k]);
        acc[o] += sum;
    }
}
