/* s16_vaddsub__neon.c — s16_vaddsub (s16_velementwise.h), NEON (aarch64 and armv7), eight values a step in two
 * int32x4 halves. TFLite's two roundings: vqrdmulhq_s32 is SaturatingRoundingDoublingHighMul (its one saturating
 * case needs a negative multiplier, which prepare never makes), and RoundingDivideByPOT's ties away from zero
 * are vrshlq_s32's ties up after subtracting one from negative values (vqaddq_s32 of the sign). The blocks of 16
 * (one_rounding_blocks) round x * m once: vmull_s32 into 64 bits, vrshlq_s64 by -(31 - shift), ties up. The
 * last n % 8 (past every block of 16) go through the scalar kernel, which reads and writes nothing past n. */
#include <arm_neon.h>

#include "s16_velementwise.h"

typedef struct {
    int32x4_t multiplier, right;
    int64x2_t total;
} rescale;

static rescale rescale_of(int32_t multiplier, int32_t shift) {
    rescale r;
    r.multiplier = vdupq_n_s32(multiplier);
    r.right = vdupq_n_s32(shift); /* shift <= 0: vrshlq_s32 by it shifts right */
    r.total = vdupq_n_s64(shift - 31);
    return r;
}

static int32x4_t apply(int32x4_t x, const rescale *r) {
    const int32x4_t high = vqrdmulhq_s32(x, r->multiplier);
    const int32x4_t fixup = vshrq_n_s32(vandq_s32(high, r->right), 31); /* -1 where high < 0 and shifting */
    return vrshlq_s32(vqaddq_s32(high, fixup), r->right);
}

static int32x4_t apply_once(int32x4_t x, const rescale *r) {
    const int64x2_t lo = vrshlq_s64(vmull_s32(vget_low_s32(x), vget_low_s32(r->multiplier)), r->total);
    const int64x2_t hi = vrshlq_s64(vmull_s32(vget_high_s32(x), vget_high_s32(r->multiplier)), r->total);
    return vcombine_s32(vmovn_s64(lo), vmovn_s64(hi));
}

void s16_vaddsub__neon(size_t n, const rl_s16_binary_params *p, const int16_t *a, const int16_t *b, int16_t *y) {
    const rescale ra = rescale_of(p->a_multiplier, p->a_shift), rb = rescale_of(p->b_multiplier, p->b_shift);
    const rescale ro = rescale_of(p->out_multiplier, p->out_shift);
    const int32x4_t left = vdupq_n_s32(p->left_shift);
    const int32x4_t lo = vdupq_n_s32(p->act_min), hi = vdupq_n_s32(p->act_max);
    const int sub = p->kind == RL_S16_SUB;
    const size_t blocks = p->one_rounding_blocks ? n - n % 16 : 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x8_t va = vld1q_s16(a + i), vb = vld1q_s16(b + i);
        const int once = i < blocks;
        int16x4_t out[2];
        for (int h = 0; h < 2; ++h) {
            const int32x4_t xa = vshlq_s32(vmovl_s16(h ? vget_high_s16(va) : vget_low_s16(va)), left);
            const int32x4_t xb = vshlq_s32(vmovl_s16(h ? vget_high_s16(vb) : vget_low_s16(vb)), left);
            const int32x4_t sa = once ? apply_once(xa, &ra) : apply(xa, &ra);
            const int32x4_t sb = once ? apply_once(xb, &rb) : apply(xb, &rb);
            int32x4_t r = apply(sub ? vsubq_s32(sa, sb) : vaddq_s32(sa, sb), &ro);
            r = vminq_s32(vmaxq_s32(r, lo), hi);
            out[h] = vqmovn_s32(r);
        }
        vst1q_s16(y + i, vcombine_s16(out[0], out[1]));
    }
    s16_vaddsub__scalar(n - i, p, a + i, b + i, y + i);
}
