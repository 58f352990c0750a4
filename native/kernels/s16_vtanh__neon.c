/* s16_vtanh__neon.c — gemmlowp's tanh of values with `integer_bits` (0 to 6) integer bits to Q0.15
 * (vactivation.h), NEON (aarch64 and armv7), eight a step with s16_fixedpoint__neon.h, bit for bit with
 * rl_s16_tanh (the AVX2 kernel's steps). A last n % 8 values go through a block on the stack, so nothing past n
 * is read or written. */
#include <string.h>

#include "s16_fixedpoint__neon.h"
#include "vactivation.h"

static int16x8_t tanh8(int16x8_t x, int integer_bits) {
    const int16x8_t zero = vdupq_n_s16(0);
    const int16x8_t e = rl_s16_exp_on_negative_values(vnegq_s16(vabsq_s16(x)), integer_bits + 1);
    const int16x8_t t = rl_s16_shift_left_saturating(vsubq_s16(rl_s16_two_over_one_plus(e), vdupq_n_s16(1 << 13)), 2);
    const int16x8_t v = vbslq_s16(vcltq_s16(x, zero), vnegq_s16(t), t);
    return vbslq_s16(vceqq_s16(x, zero), zero, v);
}

void s16_vtanh__neon(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) vst1q_s16(y + i, tanh8(vld1q_s16(x + i), (int)integer_bits));
    if (i < n) {
        int16_t block[8] = {0};
        memcpy(block, x + i, (n - i) * sizeof(int16_t));
        vst1q_s16(block, tanh8(vld1q_s16(block), (int)integer_bits));
        memcpy(y + i, block, (n - i) * sizeof(int16_t));
    }
}
