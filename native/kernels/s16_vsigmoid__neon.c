/* s16_vsigmoid__neon.c — gemmlowp's logistic of Q3.12 values to Q0.15 (vactivation.h), NEON (aarch64 and
 * armv7), eight a step with s16_fixedpoint__neon.h, bit for bit with rl_s16_logistic_q3 (the AVX2 kernel's
 * steps). A last n % 8 values go through a block on the stack, so nothing past n is read or written. */
#include <string.h>

#include "s16_fixedpoint__neon.h"
#include "vactivation.h"

static int16x8_t sigmoid8(int16x8_t x) {
    const int16x8_t zero = vdupq_n_s16(0);
    const int16x8_t e = rl_s16_exp_on_negative_values(vnegq_s16(vabsq_s16(x)), 3); /* both wrap at -32768 */
    const int16x8_t positive = rl_s16_shift_left_saturating(rl_s16_two_over_one_plus(e), 1);
    const int16x8_t v = vbslq_s16(vcgtq_s16(x, zero), positive, vsubq_s16(vdupq_n_s16(INT16_MAX), positive));
    return vbslq_s16(vceqq_s16(x, zero), vdupq_n_s16(1 << 14), v);
}

void s16_vsigmoid__neon(size_t n, const int16_t *x, int16_t *y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) vst1q_s16(y + i, sigmoid8(vld1q_s16(x + i)));
    if (i < n) {
        int16_t block[8] = {0};
        memcpy(block, x + i, (n - i) * sizeof(int16_t));
        vst1q_s16(block, sigmoid8(vld1q_s16(block)));
        memcpy(y + i, block, (n - i) * sizeof(int16_t));
    }
}
