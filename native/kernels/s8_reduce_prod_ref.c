/* s8_reduce_prod_ref.c — int8 REDUCE_PROD over marked axes (rank 8, row-major), bit for bit as LiteRT's builtin
 * kernel (QuantizedReduceProd): the first value of a product is x - zero point; each later one multiplies it
 * in int64 and rescales by the per-step multiplier input_scale / output_scale^(1/n) (prepare computes it) with
 * TFLite's 64-bit MultiplyByQuantizedMultiplier; the product is rescaled once more, offset and clamped. Each
 * output's values are taken in input order, as TFLite walks them. A product of a single value is that value's
 * integer, unchanged (see below). */
#include "kernels.h"
#include "quant.h"

void s8_reduce_prod_ref(const int64_t *dims, const int32_t *reduced, const rl_s8_prod_params *p, const int8_t *x,
                        int8_t *y) {
    int64_t strides[8], kept_dims[8], kept_strides[8], reduced_dims[8], reduced_strides[8];
    int32_t n_kept = 0, n_reduced = 0;
    int64_t out_count = 1, reduced_count = 1;
    strides[7] = 1;
    for (int d = 7; d > 0; --d) strides[d - 1] = strides[d] * dims[d];
    for (int d = 0; d < 8; ++d) {
        if (reduced[d]) {
            reduced_dims[n_reduced] = dims[d];
            reduced_strides[n_reduced++] = strides[d];
            reduced_count *= dims[d];
        } else {
            kept_dims[n_kept] = dims[d];
            kept_strides[n_kept++] = strides[d];
            out_count *= dims[d];
        }
    }
    int64_t kept_index[8] = {0};
    for (int64_t o = 0; o < out_count; ++o) {
        int64_t base = 0;
        for (int32_t i = 0; i < n_kept; ++i) base += kept_index[i] * kept_strides[i];
        int64_t reduced_index[8] = {0};
        int32_t product = 0;
        for (int64_t r = 0; r < reduced_count; ++r) {
            int64_t at = base;
            for (int32_t i = 0; i < n_reduced; ++i) at += reduced_index[i] * reduced_strides[i];
            const int32_t v = x[at] - p->input_zero_point;
            product = r == 0 ? v : rl_mul_by_quantized_multiplier_64((int64_t)product * v, p->multiplier, p->shift);
            rl_next_index(n_reduced, reduced_dims, reduced_index);
        }
        const int32_t q = rl_mul_by_quantized_multiplier_64(product, p->multiplier, p->shift) + p->output_zero_point;
        /* A product of one value: LiteRT's optimized kernel drops size-1 axes, finds nothing left to reduce and
         * copies the input's integers, neither rescaled nor offset. */
        y[o] = reduced_count == 1 ? x[base] : (int8_t)rl_clamp_i32(q, -128, 127);
        rl_next_index(n_kept, kept_dims, kept_index);
    }
}
