/* xx_reduce_minmax_ref.c — REDUCE_MAX and REDUCE_MIN over marked axes (rank 8, row-major) of float32 or int8
 * values, the result in the input's type (int8 needs no rescaling: input and output share their
 * quantization). A reduction over no element leaves the identity (-inf / +inf, -128 / 127), as TFLite. */
#include <math.h>

#include "kernels.h"

void xx_reduce_minmax_ref(int32_t is_int8, int32_t take_max, const int64_t *dims, const int32_t *reduced, const void *x,
                          void *y, int64_t out_count) {
    int64_t out_strides[8];
    const int64_t in_count = rl_reduce_output_strides(dims, reduced, out_strides);
    float *yf = (float *)y;
    int8_t *yi = (int8_t *)y;
    for (int64_t i = 0; i < out_count; ++i) {
        if (is_int8) yi[i] = (int8_t)(take_max ? -128 : 127);
        else yf[i] = take_max ? -INFINITY : INFINITY;
    }
    int64_t index[8] = {0};
    for (int64_t i = 0; i < in_count; ++i) {
        int64_t o = 0;
        for (int d = 0; d < 8; ++d) o += index[d] * out_strides[d];
        if (is_int8) {
            const int8_t v = ((const int8_t *)x)[i];
            if (take_max ? v > yi[o] : v < yi[o]) yi[o] = v;
        } else {
            const float v = ((const float *)x)[i];
            /* std::max / std::min as TFLite folds them: a NaN never replaces the running value. */
            if (take_max ? v > yf[o] : v < yf[o]) yf[o] = v;
        }
        rl_next_index(8, dims, index);
    }
}
