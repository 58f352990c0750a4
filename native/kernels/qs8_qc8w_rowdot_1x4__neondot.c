/* qs8_qc8w_rowdot_1x4__neondot.c — int8 row-dot (rowdot.h), NEON with the dot-product extension (aarch64
 * armv8.2-a+dotprod: the Cortex-A76 of a Raspberry Pi 5): four weight rows per step, 16 bytes of each at a time,
 * sdot (vdotq_s32) adding each group of 4 signed products into an int32 lane (input_offset 0: signed by signed),
 * the adds wrapping as the scalar kernel's sums; a row's last kc % 16 bytes go 8 at a time through vmull_s8 and
 * vpadalq_s16, then one by one (reading past the row could fault), as s8_s32_rowdot_1x4__neondot.c. The
 * requantization is qs8_requantize__neon.h's, bit for bit with the scalar kernel. Weight rows past nc alias the
 * last real one (computed, never stored). The plain NEON kernel's vmull and vpadal per 8 bytes made an int8
 * classifier head (EfficientNet-B0's 1280 -> 1000, one row) 0.68M instructions per invoke under qemu, XNNPACK's
 * dot-product GEMM 0.18M. */
#include "qs8_requantize__neon.h"
#include "rowdot.h"

void qs8_qc8w_rowdot_1x4__neondot(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                                  const int32_t *bias, const float *scales, int8_t *y, size_t y_stride,
                                  const rl_qs8_requantization_params *params) {
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    const size_t k16 = kc - kc % 16, k8 = kc - kc % 8;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = nc - n0 < 4 ? nc - n0 : 4;
        const int8_t *w0 = w + n0 * kc;
        const int8_t *w1 = rows > 1 ? w0 + kc : w0;
        const int8_t *w2 = rows > 2 ? w1 + kc : w1;
        const int8_t *w3 = rows > 3 ? w2 + kc : w2;
        int32_t b[4] = {0, 0, 0, 0};
        float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (size_t j = 0; j < rows; ++j) b[j] = bias[n0 + j], s[j] = scales[n0 + j];
        const float32x4_t vscale = vld1q_f32(s);
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            const int8_t *p0 = w0, *p1 = w1, *p2 = w2, *p3 = w3, *px = xi;
            int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
            for (size_t k = 0; k < k16; k += 16) {
                const int8x16_t xv = vld1q_s8(px);
                a0 = vdotq_s32(a0, xv, vld1q_s8(p0));
                a1 = vdotq_s32(a1, xv, vld1q_s8(p1));
                a2 = vdotq_s32(a2, xv, vld1q_s8(p2));
                a3 = vdotq_s32(a3, xv, vld1q_s8(p3));
                px += 16, p0 += 16, p1 += 16, p2 += 16, p3 += 16;
            }
            if (k16 < k8) {
                const int8x8_t xv = vld1_s8(px);
                a0 = vpadalq_s16(a0, vmull_s8(xv, vld1_s8(p0)));
                a1 = vpadalq_s16(a1, vmull_s8(xv, vld1_s8(p1)));
                a2 = vpadalq_s16(a2, vmull_s8(xv, vld1_s8(p2)));
                a3 = vpadalq_s16(a3, vmull_s8(xv, vld1_s8(p3)));
            }
            uint32_t t[4] = {(uint32_t)b[0], (uint32_t)b[1], (uint32_t)b[2], (uint32_t)b[3]};
            for (size_t k = k8; k < kc; ++k) {
                t[0] += (uint32_t)((int32_t)xi[k] * (int32_t)w0[k]);
                t[1] += (uint32_t)((int32_t)xi[k] * (int32_t)w1[k]);
                t[2] += (uint32_t)((int32_t)xi[k] * (int32_t)w2[k]);
                t[3] += (uint32_t)((int32_t)xi[k] * (int32_t)w3[k]);
            }
            const int32x4_t sums = {vaddvq_s32(a0), vaddvq_s32(a1), vaddvq_s32(a2), vaddvq_s32(a3)};
            const int32x4_t acc = vaddq_s32(sums, vreinterpretq_s32_u32(vld1q_u32(t)));
            const int32x4_t q32 = rl_neon_requantize4(acc, vscale, &rq);
            const int8x8_t q8 = vqmovn_s16(vcombine_s16(vqmovn_s32(q32), vqmovn_s32(q32)));
            int8_t *yi = y + i * y_stride + n0;
            if (rows == 4) {
                const uint32_t bytes = vget_lane_u32(vreinterpret_u32_s8(q8), 0);
                memcpy(yi, &bytes, 4);
            } else {
                rl_neon_store_partial8(yi, q8, rows);
            }
        }
    }
}
