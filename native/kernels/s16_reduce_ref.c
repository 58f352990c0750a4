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
