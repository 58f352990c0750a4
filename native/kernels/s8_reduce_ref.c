/* s8_reduce_ref.c — int8 MEAN and SUM over marked axes (rank 8, row-major) as XNNPACK's qs8 reduction computes
 * them (LiteRT's default Interpreter delegates both; see reduce_int8.c): int32 sums, then in float32
 * sum * scale + bias, bias = output_zero_point - (n * input_zero_point) * scale, clamped to int8 and rounded to
 * nearest even. scale is input_scale / output_scale, for MEAN times 1 / n. acc is out_count int32 of scratch.
 * The float32 rounding of the bias and of the sum is what makes it bit-exact: neither the exact value nor
 * (sum - n * zi) * scale + zo match everywhere.
 */
#include "kernels.h"

void s8_reduce_ref(const int64_t *dims, const int32_t *reduced, const rl_s8_reduce_params *p, const int8_t *x,
                   int32_t *acc, int8_t *y, int64_t out_count) {
    int64_t out_strides[8];
    const int64_t in_count = rl_reduce_output_strides(dims, reduced, out_strides);
    for (int64_t i = 0; i < out_count; ++i) acc[i] = 0;
    int64_t index[8] = {0};
    for (int64_t i = 0; i < in_count; ++i) {
        int64_t o = 0;
        for (int d = 0; d < 8; ++d) o += index[d] * out_strides[d];
        acc[o] += x[i];
        rl_next_index(8, dims, index);
    }
    for (int64_t i = 0; i < out_count; ++i) y[i] = rl_s8_reduce_output(acc[i], p);
}
