/* s8_s32_rowdot_1x4__neondot.c — int8-to-int32 row-dot (rowdot.h), NEON with the dot-product extension (aarch64
 * armv8.2-a+dotprod: the Cortex-A76 of a Raspberry Pi 5): four weight rows per step, 16 bytes of each at a time,
 * sdot (vdotq_s32) adding each group of 4 signed products into an int32 lane, exact, and the adds wrapping as
 * the scalar kernel's sums; a row's last kc % 16 bytes go 8 at a time through vmull_s8 and vpadalq_s16 (as
 * s8_s32_rowdot_1x4__neon.c), then one by one (reading past the row could fault). Weight rows past nc alias the
 * last real one (computed, never stored). */
#include <arm_neon.h>

#include "rowdot.h"

void s8_s32_rowdot_1x4__neondot(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                                const int32_t *bias, int32_t *y, size_t y_stride) {
    const size_t k16 = kc - kc % 16, k8 = kc - kc % 8;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = nc - n0 < 4 ? nc - n0 : 4;
        const int8_t *w0 = w + n0 * kc;
        const int8_t *w1 = rows > 1 ? w0 + kc : w0;
        const int8_t *w2 = rows > 2 ? w1 + kc : w1;
        const int8_t *w3 = rows > 3 ? w2 + kc : w2;
        int32_t b[4] = {0, 0, 0, 0};
        for (size_t j = 0; bias && j < rows; ++j) b[j] = bias[n0 + j];
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
            size_t k = 0;
            for (; k < k16; k += 16) {
                const int8x16_t xv = vld1q_s8(xi + k);
                a0 = vdotq_s32(a0, xv, vld1q_s8(w0 + k));
                a1 = vdotq_s32(a1, xv, vld1q_s8(w1 + k));
                a2 = vdotq_s32(a2, xv, vld1q_s8(w2 + k));
                a3 = vdotq_s32(a3, xv, vld1q_s8(w3 + k));
            }
            if (k < k8) {
                const int8x8_t xv = vld1_s8(xi + k);
                a0 = vpadalq_s16(a0, vmull_s8(xv, vld1_s8(w0 + k)));
                a1 = vpadalq_s16(a1, vmull_s8(xv, vld1_s8(w1 + k)));
                a2 = vpadalq_s16(a2, vmull_s8(xv, vld1_s8(w2 + k)));
                a3 = vpadalq_s16(a3, vmull_s8(xv, vld1_s8(w3 + k)));
            }
            uint32_t t[4] = {(uint32_t)b[0], (uint32_t)b[1], (uint32_t)b[2], (uint32_t)b[3]};
            for (k = k8; k < kc; ++k) {
                t[0] += (uint32_t)((int32_t)xi[k] * (int32_t)w0[k]);
                t[1] += (uint32_t)((int32_t)xi[k] * (int32_t)w1[k]);
                t[2] += (uint32_t)((int32_t)xi[k] * (int32_t)w2[k]);
                t[3] += (uint32_t)((int32_t)xi[k] * (int32_t)w3[k]);
            }
            const int32x4_t sums = {vaddvq_s32(a0), vaddvq_s32(a1), vaddvq_s32(a2), vaddvq_s32(a3)};
            const int32x4_t acc = vaddq_s32(sums, vreinterpretq_s32_u32(vld1q_u32(t)));
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
