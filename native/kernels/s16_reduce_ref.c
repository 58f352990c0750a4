/* s16_reduce_ref.c — int16 MEAN, SUM, REDUCE_MAX and REDUCE_MIN as LiteRT's builtin kernels run them:
 * - MEAN: reference QuantizedMeanOrSum, the int32 sum times the input/output multiplier into which prepare
 *   folded 1/count (shifted up by floor(log2 count), at most 32, then divided);
 * - SUM: the optimized QuantizedMeanOrSum, the int32 sum converted to float, times input scale / output scale
 *   in float, rounded half away from zero;
 * - REDUCE_MAX / MIN: the raw extreme (input and output share their quantization). */
#include <math.h>

#include "quant.h"
#include "s16_elementwise.h"

void s16_reduce_ref(const rl_s16_reduce_params *p, const int64_t *dims, const int32_t *reduce_axes, int64_t count,
                    const int16_t *x, int32_t *sums, int16_t *y) {
    const int extreme = p->kind == RL_S16_REDUCE_MAX || p->kind == RL_S16_REDUCE_MIN;
    for (int64_t i = 0; i < count; ++i) sums[i] = p->kind == RL_S16_REDUCE_MAX ? INT16_MIN : (extreme ? INT16_MAX : 0);
    int64_t total = 1;
    for (int d = 0; d < 8; ++d) total *= dims[d];
    if (total == 0) {
        for (int64_t i = 0; i < count; ++i) y[i] = 0;
        return;
    }
    /* Reduced axes that are all the trailing ones (a LayerNorm's mean over its last axis): rows of `inner`
     * values, one output each. */
    int first_reduced = 8, suffix = 1;
    for (int d = 0; d < 8; ++d)
        if (reduce_axes[d] && first_reduced == 8) first_reduced = d;
    for (int d = first_reduced; d < 8; ++d) suffix &= reduce_axes[d] || dims[d] == 1;
    if (suffix && !extreme) {
        const int64_t inner = total / count;
        for (int64_t o = 0; o < count; ++o, x += inner) {
            int32_t sum = 0;
            for (int64_t i = 0; i < inner; ++i) sum += x[i];
            sums[o] = sum;
        }
        total = 0; /* summed */
    }
    int64_t index[8] = {0};
    for (int64_t at = 0; at < total; ++at) {
        int64_t out = 0;
        for (int d = 0; d < 8; ++d)
            if (!reduce_axes[d]) out = out * dims[d] + index[d];
        const int32_t v = x[at];
        if (p->kind == RL_S16_REDUCE_MAX)
            sums[out] = v > sums[out] ? v : sums[out];
        else if (p->kind == RL_S16_REDUCE_MIN)
            sums[out] = v < sums[out] ? v : sums[out];
        else
            sums[out] += v;
        for (int d = 8 - 1; d >= 0 && ++index[d] == dims[d]; --d) index[d] = 0;
    }
    for (int64_t i = 0; i < count; ++i) {
        int32_t r = sums[i];
        if (p->kind == RL_S16_MEAN) {
            r = rl_mul_by_quantized_multiplier(r, p->multiplier, p->shift);
        } else if (p->kind == RL_S16_SUM) {
            const float q = roundf((float)r * p->scale);
            r = q >= -2147483648.0f && q < 2147483648.0f ? (int32_t)q : INT32_MIN;
        }
        y[i] = (int16_t)rl_clamp_i32(r, -32768, 32767);
    }
}

/* int16 REDUCE_PROD as LiteRT's QuantizedReduceProd<int16_t>, the int8 kernel's arithmetic (s8_reduce_prod_ref.c)
 * on int16 values with zero points 0: each product in input order, every step rescaled by input_scale /
 * output_scale^(1/n), once more at the end, clamped; a product of one value is that value's integer. */
void s16_reduce_prod_ref(const int64_t *dims, const int32_t *reduced, int32_t multiplier, int32_t shift,
                         const int16_t *x, int16_t *y) {
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
            product = r == 0 ? x[at] : rl_mul_by_quantized_multiplier_64((int64_t)product * x[at], multiplier, shift);
            rl_next_index(n_reduced, reduced_dims, reduced_index);
        }
        const int32_t q = rl_mul_by_quantized_multiplier_64(product, multiplier, shift);
        y[o] = reduced_count == 1 ? x[base] : (int16_t)rl_clamp_i32(q, -32768, 32767);
        rl_next_index(n_kept, kept_dims, kept_index);
    }
}
