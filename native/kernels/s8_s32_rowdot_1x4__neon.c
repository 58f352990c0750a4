/* s8_s32_rowdot_1x4__neon.c — int8-to-int32 row-dot (rowdot.h), NEON without dot products (aarch64 and armv7):
 * four weight rows per step, 8 bytes of each at a time: vmull_s8 multiplies into int16 (every product of two
 * int8 fits, even -128 * -128) and vpadalq_s16 adds neighbouring products into int32 lanes, modulo 2^32 as the
 * scalar kernel's sums; a row's last kc % 8 bytes are added one by one (reading past the row could fault).
 * Weight rows past nc alias the last real one (computed, never stored). */
#include <arm_neon.h>

#include "rowdot.h"

/* [sum(a0), sum(a1), sum(a2), sum(a3)], with pairwise adds that armv7 has too; int32 adds wrap. */
static int32x4_t reduce4(int32x4_t a0, int32x4_t a1, int32x4_t a2, int32x4_t a3) {
    const int32x2_t h0 = vadd_s32(vget_low_s32(a0), vget_high_s32(a0));
    const int32x2_t h1 = vadd_s32(vget_low_s32(a1), vget_high_s32(a1));
    const int32x2_t h2 = vadd_s32(vget_low_s32(a2), vget_high_s32(a2));
    const int32x2_t h3 = vadd_s32(vget_low_s32(a3), vget_high_s32(a3));
    return vcombine_s32(vpadd_s32(h0, h1), vpadd_s32(h2, h3));
}

void s8_s32_rowdot_1x4__neon(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                             const int32_t *bias, int32_t *y, size_t y_stride) {
    const size_t k8 = kc - kc % 8;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = nc - n0 < 4 ? nc - n0 : 4;
        const int8_t *w0 = w + n0 * kc;
        const int8_t *w1 = rows > 1 ? w0 + kc : w0;
        const int8_t *w2 = rows > 2 ? w1 + kc : w1;
        const int8_t *w3 = rows > 3 ? w2 + kc : w2;
        int32_t b[4] = {0, 0, 0, 0};
        for (size_t j = 0; bias && j < rows; ++j) b[j] = bias[n0 + j];
        const int32x4_t vbias = vld1q_s32(b);
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
            for (size_t k = 0; k < k8; k += 8) {
                const int8x8_t xv = vld1_s8(xi + k);
                a0 = vpadalq_s16(a0, vmull_s8(xv, vld1_s8(w0 + k)));
                a1 = vpadalq_s16(a1, vmull_s8(xv, vld1_s8(w1 + k)));
                a2 = vpadalq_s16(a2, vmull_s8(xv, vld1_s8(w2 + k)));
                a3 = vpadalq_s16(a3, vmull_s8(xv, vld1_s8(w3 + k)));
            }
            uint32_t t[4] = {0, 0, 0, 0};
            for (size_t k = k8; k < kc; ++k) {
                t[0] += (uint32_t)((int32_t)xi[k] * (int32_t)w0[k]);
                t[1] += (uint32_t)((int32_t)xi[k] * (int32_t)w1[k]);
                t[2] += (uint32_t)((int32_t)xi[k] * (int32_t)w2[k]);
                t[3] += (uint32_t)((int32_t)xi[k] * (int32_t)w3[k]);
            }
            const int32x4_t acc =
                vaddq_s32(vaddq_s32(vbias, reduce4(a0, a1, a2, a3)), vreinterpretq_s32_u32(vld1q_u32(t)));
            int32_t *yi = y + i * y_stride + n0;
            if (rows == 4) {
                vst1q_s32(yi, acc);
            } else {
                int32_t out[4];
                vst1q_s32(out, acc);
                for (size_t j = 0; j < rows; ++j) yi[j] = out[j];
            }
        }
    }
}
