/* s8_rowdot_1x4__neon.h — the NEON int8 row-dot kernels (rowdot.h), one template: RL_QS8_ROWDOT_1X4__NEON(name)
 * requantizes the sums (qs8_qc8w_rowdot_1x4__neon.c and __neondot.c), RL_S8_S32_ROWDOT_1X4__NEON(name) stores
 * them (s8_s32_rowdot_1x4__neon.c and __neondot.c); the __neondot files are the same kernels compiled with
 * +dotprod. Four weight rows per step (rowdot.h's step helpers); the requantization is qs8_requantize__neon.h's,
 * bit for bit with the scalar kernel.
 *
 * One input row against a step's four weight rows: [sum(x * w0), ..., sum(x * w3)] modulo 2^32, the scalar
 * kernels' sums. With the dot-product extension (the __neondot files, compiled with +dotprod: the Cortex-A76 of
 * a Raspberry Pi 5) 64, then 32, then 16 bytes a step through sdot, each group of 4 signed products into an int32
 * lane, exact; then (and without it) 16 bytes a step on aarch64, 8 on armv7: vmull_s8 into int16 (every product of
 * two int8 fits, even -128 * -128) and vpadalq_s16 into int32 lanes; a row's last kc % 8 bytes one by one
 * (reading past the row could fault). All adds wrap. */
#ifndef RILLET_S8_ROWDOT_1X4_NEON_H
#define RILLET_S8_ROWDOT_1X4_NEON_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

#include "qs8_requantize__neon.h"
#include "rowdot.h"

/* [sum(a0), sum(a1), sum(a2), sum(a3)]; armv7 has no vpaddq. */
static inline int32x4_t rl_s8_rowdot_reduce4__neon(int32x4_t a0, int32x4_t a1, int32x4_t a2, int32x4_t a3) {
#if defined(__aarch64__)
    return vpaddq_s32(vpaddq_s32(a0, a1), vpaddq_s32(a2, a3));
#else
    const int32x2_t h0 = vadd_s32(vget_low_s32(a0), vget_high_s32(a0));
    const int32x2_t h1 = vadd_s32(vget_low_s32(a1), vget_high_s32(a1));
    const int32x2_t h2 = vadd_s32(vget_low_s32(a2), vget_high_s32(a2));
    const int32x2_t h3 = vadd_s32(vget_low_s32(a3), vget_high_s32(a3));
    return vcombine_s32(vpadd_s32(h0, h1), vpadd_s32(h2, h3));
#endif
}

static inline int32x4_t rl_s8_rowdot_sums4__neon(const int8_t *x, const int8_t *w0, const int8_t *w1,
                                                 const int8_t *w2, const int8_t *w3, size_t kc) {
    int32x4_t a0 = vdupq_n_s32(0), a1 = a0, a2 = a0, a3 = a0;
    size_t k = 0;
#if defined(__ARM_FEATURE_DOTPROD)
    /* 64 bytes a step, each row's as one ld1 of four registers through a pointer that the load itself advances:
     * 5 loads and 16 sdots a step and the loop's compare and branch, where 32 bytes a step indexed by k took 10
     * loads and the address arithmetic for 8 sdots (an int8 classifier head, 1280 -> 1000, under qemu: 265K
     * instructions a row, XNNPACK's packed 1x16c4 GEMM's whole op 190K). Two accumulators a row, so that a
     * row's four sdots a step are two chains, not one. */
    if (kc >= 64) {
        int32x4_t b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        const int8_t *xp = x, *p0 = w0, *p1 = w1, *p2 = w2, *p3 = w3;
        const int8_t *const end = x + (kc & ~(size_t)63);
        do {
            const int8x16x4_t xv = vld1q_s8_x4(xp);
            const int8x16x4_t v0 = vld1q_s8_x4(p0), v1 = vld1q_s8_x4(p1);
            const int8x16x4_t v2 = vld1q_s8_x4(p2), v3 = vld1q_s8_x4(p3);
            xp += 64, p0 += 64, p1 += 64, p2 += 64, p3 += 64;
            a0 = vdotq_s32(vdotq_s32(a0, xv.val[0], v0.val[0]), xv.val[2], v0.val[2]);
            b0 = vdotq_s32(vdotq_s32(b0, xv.val[1], v0.val[1]), xv.val[3], v0.val[3]);
            a1 = vdotq_s32(vdotq_s32(a1, xv.val[0], v1.val[0]), xv.val[2], v1.val[2]);
            b1 = vdotq_s32(vdotq_s32(b1, xv.val[1], v1.val[1]), xv.val[3], v1.val[3]);
            a2 = vdotq_s32(vdotq_s32(a2, xv.val[0], v2.val[0]), xv.val[2], v2.val[2]);
            b2 = vdotq_s32(vdotq_s32(b2, xv.val[1], v2.val[1]), xv.val[3], v2.val[3]);
            a3 = vdotq_s32(vdotq_s32(a3, xv.val[0], v3.val[0]), xv.val[2], v3.val[2]);
            b3 = vdotq_s32(vdotq_s32(b3, xv.val[1], v3.val[1]), xv.val[3], v3.val[3]);
        } while (xp != end);
        a0 = vaddq_s32(a0, b0), a1 = vaddq_s32(a1, b1), a2 = vaddq_s32(a2, b2), a3 = vaddq_s32(a3, b3);
        k = kc & ~(size_t)63;
    }
    if (k + 32 <= kc) {
        const int8x16_t xa = vld1q_s8(x + k), xb = vld1q_s8(x + k + 16);
        a0 = vdotq_s32(vdotq_s32(a0, xa, vld1q_s8(w0 + k)), xb, vld1q_s8(w0 + k + 16));
        a1 = vdotq_s32(vdotq_s32(a1, xa, vld1q_s8(w1 + k)), xb, vld1q_s8(w1 + k + 16));
        a2 = vdotq_s32(vdotq_s32(a2, xa, vld1q_s8(w2 + k)), xb, vld1q_s8(w2 + k + 16));
        a3 = vdotq_s32(vdotq_s32(a3, xa, vld1q_s8(w3 + k)), xb, vld1q_s8(w3 + k + 16));
        k += 32;
    }
    if (k + 16 <= kc) {
        const int8x16_t xv = vld1q_s8(x + k);
        a0 = vdotq_s32(a0, xv, vld1q_s8(w0 + k));
        a1 = vdotq_s32(a1, xv, vld1q_s8(w1 + k));
        a2 = vdotq_s32(a2, xv, vld1q_s8(w2 + k));
        a3 = vdotq_s32(a3, xv, vld1q_s8(w3 + k));
        k += 16;
    }
#endif
#if defined(__aarch64__)
    /* 16 bytes a step where vmull_high_s8 exists: one load of each row for two multiplies, and half the loop's
     * own instructions. */
    for (; k + 16 <= kc; k += 16) {
        const int8x16_t xv = vld1q_s8(x + k);
        const int8x8_t xl = vget_low_s8(xv);
        const int8x16_t v0 = vld1q_s8(w0 + k), v1 = vld1q_s8(w1 + k), v2 = vld1q_s8(w2 + k), v3 = vld1q_s8(w3 + k);
        a0 = vpadalq_s16(vpadalq_s16(a0, vmull_s8(xl, vget_low_s8(v0))), vmull_high_s8(xv, v0));
        a1 = vpadalq_s16(vpadalq_s16(a1, vmull_s8(xl, vget_low_s8(v1))), vmull_high_s8(xv, v1));
        a2 = vpadalq_s16(vpadalq_s16(a2, vmull_s8(xl, vget_low_s8(v2))), vmull_high_s8(xv, v2));
        a3 = vpadalq_s16(vpadalq_s16(a3, vmull_s8(xl, vget_low_s8(v3))), vmull_high_s8(xv, v3));
    }
#endif
    for (; k + 8 <= kc; k += 8) {
        const int8x8_t xv = vld1_s8(x + k);
        a0 = vpadalq_s16(a0, vmull_s8(xv, vld1_s8(w0 + k)));
        a1 = vpadalq_s16(a1, vmull_s8(xv, vld1_s8(w1 + k)));
        a2 = vpadalq_s16(a2, vmull_s8(xv, vld1_s8(w2 + k)));
        a3 = vpadalq_s16(a3, vmull_s8(xv, vld1_s8(w3 + k)));
    }
    uint32_t t[4] = {0, 0, 0, 0};
    for (; k < kc; ++k) {
        t[0] += (uint32_t)((int32_t)x[k] * (int32_t)w0[k]);
        t[1] += (uint32_t)((int32_t)x[k] * (int32_t)w1[k]);
        t[2] += (uint32_t)((int32_t)x[k] * (int32_t)w2[k]);
        t[3] += (uint32_t)((int32_t)x[k] * (int32_t)w3[k]);
    }
    return vaddq_s32(rl_s8_rowdot_reduce4__neon(a0, a1, a2, a3), vreinterpretq_s32_u32(vld1q_u32(t)));
}

#define RL_QS8_ROWDOT_1X4__NEON(name)                                                                           \
    RL_QS8_ROWDOT_FN(name) {                                                                                    \
        const rl_neon_requantization rq = rl_neon_requantization_of(params);                                    \
        for (size_t n0 = 0; n0 < nc; n0 += 4) {                                                                 \
            const size_t rows = rl_rowdot_rows_at(nc, n0);                                                      \
            const int8_t *w0, *w1, *w2, *w3;                                                                    \
            RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);                                            \
            /* A whole step's from the arrays: the padded copy's loop became two memcpy calls a step. */       \
            int32x4_t vbias;                                                                                    \
            float32x4_t vscale;                                                                                 \
            if (rows == 4) {                                                                                    \
                vbias = vld1q_s32(bias + n0), vscale = vld1q_f32(scales + n0);                                  \
            } else {                                                                                            \
                const rl_rowdot_step_params p = rl_rowdot_step_params_at(bias, scales, n0, rows);               \
                vbias = vld1q_s32(p.bias), vscale = vld1q_f32(p.scale);                                         \
            }                                                                                                   \
            for (size_t i = 0; i < m; ++i) {                                                                    \
                const int32x4_t acc =                                                                           \
                    vaddq_s32(vbias, rl_s8_rowdot_sums4__neon(x + i * x_stride, w0, w1, w2, w3, kc));           \
                const int32x4_t q32 = rl_neon_requantize4(acc, vscale, &rq);                                    \
                const int8x8_t q8 = vqmovn_s16(vcombine_s16(vqmovn_s32(q32), vqmovn_s32(q32)));                 \
                rl_rowdot_store_s8x4(y + i * y_stride + n0, vget_lane_u32(vreinterpret_u32_s8(q8), 0), rows);   \
            }                                                                                                   \
        }                                                                                                       \
    }

#define RL_S8_S32_ROWDOT_1X4__NEON(name)                                                                        \
    RL_S8_S32_ROWDOT_FN(name) {                                                                                 \
        for (size_t n0 = 0; n0 < nc; n0 += 4) {                                                                 \
            const size_t rows = rl_rowdot_rows_at(nc, n0);                                                      \
            const int8_t *w0, *w1, *w2, *w3;                                                                    \
            RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);                                            \
            const int32x4_t vbias = vld1q_s32(rl_rowdot_step_params_at(bias, NULL, n0, rows).bias);             \
            for (size_t i = 0; i < m; ++i) {                                                                    \
                const int32x4_t acc =                                                                           \
                    vaddq_s32(vbias, rl_s8_rowdot_sums4__neon(x + i * x_stride, w0, w1, w2, w3, kc));           \
                int32_t *yi = y + i * y_stride + n0, all[4];                                                    \
                vst1q_s32(rows == 4 ? yi : all, acc);                                                           \
                if (rows < 4) rl_rowdot_store_s32x4(yi, all, rows);                                             \
            }                                                                                                   \
        }                                                                                                       \
    }

#endif
