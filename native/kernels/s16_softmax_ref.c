/* s16_softmax_ref.c — int16 SOFTMAX as TFLite's SoftmaxInt16 (LiteRT runs it for both its kernel kinds): each
 * row's differences from its maximum scaled so that [-65535, 0] spans [-10, 0], exp from a 513-entry table,
 * the sum's reciprocal from a 1 / (1 + x) table after normalising it by its leading zeros, and every exp
 * times that reciprocal rounded back to Q0.15 in [0, 32767]. */
#include "quant.h"
#include "s16_elementwise.h"

static int16_t saturate16(int32_t v) { return (int16_t)(v < -32768 ? -32768 : (v > 32767 ? 32767 : v)); }

void s16_softmax_ref(const rl_s16_softmax_params *p, int64_t rows, int32_t depth, const int16_t *x, int16_t *y) {
    for (int64_t r = 0; r < rows; ++r, x += depth, y += depth) {
        int16_t max = INT16_MIN;
        for (int32_t c = 0; c < depth; ++c) max = x[c] > max ? x[c] : max;
        /* y holds the exps until the reciprocal is known */
        int32_t sum = 0;
        for (int32_t c = 0; c < depth; ++c) {
            const int32_t scaled =
                rl_mul_by_quantized_multiplier((int32_t)x[c] - max, p->input_multiplier, p->input_shift);
            y[c] = rl_s16_lut_lookup(saturate16(scaled + 32767), p->exp_lut);
            sum += y[c];
        }
        const int32_t headroom_plus_one = rl_count_leading_zeros((uint32_t)sum);
        const int32_t shifted_sum = (int32_t)((((int64_t)sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
        const int32_t reciprocal =
            rl_s16_lut_lookup(saturate16(shifted_sum - ((1 << 15) + (1 << 16))), p->one_over_one_plus_x_lut);
        const int32_t right_shift = 31 - headroom_plus_one;
        const int64_t round = (int64_t)1 << (right_shift - 1);
        for (int32_t c = 0; c < depth; ++c) {
            const int64_t v = ((int64_t)y[c] * reciprocal + round) >> right_shift;
            y[c] = (int16_t)(v < 0 ? 0 : (v > 32767 ? 32767 : v));
        }
    }
}
