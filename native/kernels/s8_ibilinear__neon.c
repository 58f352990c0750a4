/* s8_ibilinear__neon.c — int8 bilinear resizing (s8_ibilinear__scalar.c's arithmetic), 8 channels a step, NEON
 * (aarch64 and armv7).
 *
 * Each blend is the scalar kernel's expression in int32 lanes: tl << 11 (vshll) plus (tr - tl) * wh (the
 * difference widened by vsubl, multiplied and accumulated by vmlal), the same for the bottom row, then
 * (t << 11) + (b - t) * wv, and vrshr by 22, which adds 2^21 before shifting as the scalar kernel does.
 * Every intermediate fits int32 as in the scalar kernel; the result lies between the four inputs, so the
 * narrowing moves lose nothing.
 *
 * A pixel's last k = 1-7 channels (all of an RGB pixel's) load the 8 bytes that end where the pixel ends, where
 * the row holds 8 bytes up to there, blend all 8 lanes (the first 8 - k from bytes before the pixel, discarded),
 * move the last k down with vtbl, and store 8 bytes whose extra ones land on the next pixels' outputs, written
 * after, where the output row has that many left; elsewhere (a row's first and last pixels) they run the scalar
 * expression. Nothing outside the input rows or the output row is read or written.
 */
#include <arm_neon.h>
#include <stddef.h>

#include "kernels.h"

/* One half (4 channels) of a row pair's column blend: a << 11 + (b - a) * wh. */
static inline int32x4_t column_blend(int16x4_t a, int16x4_t d, int16x4_t vwh) {
    return vmlal_s16(vshll_n_s16(a, 11), d, vwh);
}

static inline int32x4_t row_blend(int32x4_t t, int32x4_t b, int32x4_t vwv) {
    return vrshrq_n_s32(vmlaq_s32(vshlq_n_s32(t, 11), vsubq_s32(b, t), vwv), 22);
}

/* 8 channels: the four pixels' bytes blended, narrowed to int8. */
static inline int8x8_t blend8(int8x8_t vtl, int8x8_t vtr, int8x8_t vbl, int8x8_t vbr, int16x4_t vwh, int32x4_t vwv) {
    const int16x8_t t16 = vmovl_s8(vtl), dt = vsubl_s8(vtr, vtl);
    const int16x8_t b16 = vmovl_s8(vbl), db = vsubl_s8(vbr, vbl);
    const int32x4_t lo = row_blend(column_blend(vget_low_s16(t16), vget_low_s16(dt), vwh),
                                   column_blend(vget_low_s16(b16), vget_low_s16(db), vwh), vwv);
    const int32x4_t hi = row_blend(column_blend(vget_high_s16(t16), vget_high_s16(dt), vwh),
                                   column_blend(vget_high_s16(b16), vget_high_s16(db), vwh), vwv);
    return vmovn_s16(vcombine_s16(vmovn_s32(lo), vmovn_s32(hi)));
}

void s8_ibilinear__neon(size_t out_w, size_t channels, const int8_t *top, const int8_t *bottom,
                        const rl_ibilinear_tap *cols, int32_t wv, int8_t *y) {
    const int32x4_t vwv = vdupq_n_s32(wv);
    const size_t k = channels % 8, c_tail = channels - k;
    /* lane i takes lane 8 - k + i; indices past 7 give 0 */
    static const int8_t steps[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int8x8_t down = vadd_s8(vld1_s8(steps), vdup_n_s8((int8_t)(8 - k)));
    for (size_t ox = 0; ox < out_w; ++ox) {
        const int32_t wh = cols[ox].alpha_q11;
        const int16x4_t vwh = vdup_n_s16((int16_t)wh); /* 0..2048 */
        const size_t left = (size_t)cols[ox].lower * channels, right = (size_t)cols[ox].upper * channels;
        const int8_t *tl = top + left, *tr = top + right, *bl = bottom + left, *br = bottom + right;
        size_t c = 0;
        for (; c + 8 <= channels; c += 8)
            vst1_s8(y + c, blend8(vld1_s8(tl + c), vld1_s8(tr + c), vld1_s8(bl + c), vld1_s8(br + c), vwh, vwv));
        if (k && left + channels >= 8 && right + channels >= 8 && (out_w - 1 - ox) * channels >= 8 - k) {
            const ptrdiff_t at = (ptrdiff_t)c_tail + (ptrdiff_t)k - 8; /* may be before the pixel, inside the row */
            const int8x8_t v = blend8(vld1_s8(tl + at), vld1_s8(tr + at), vld1_s8(bl + at), vld1_s8(br + at), vwh, vwv);
            vst1_s8(y + c_tail, vtbl1_s8(v, down));
            c = channels;
        }
        for (; c < channels; ++c) {
            const int32_t t = tl[c] * 2048 + (tr[c] - tl[c]) * wh;
            const int32_t b = bl[c] * 2048 + (br[c] - bl[c]) * wh;
            y[c] = (int8_t)((t * 2048 + (b - t) * wv + (1 << 21)) >> 22);
        }
        y += channels;
    }
}
