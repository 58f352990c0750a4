/* s8_rowdot_sums__neon.h — the k loop of the NEON int8 row-dot kernels (rowdot.h): qs8_qc8w_rowdot_1x4__neon.c
 * and __neondot.c requantize its sums, s8_s32_rowdot_1x4__neon.c and __neondot.c store them; the loop is one.
 *
 * One input row against a step's four weight rows: [sum(x * w0), ..., sum(x * w3)] modulo 2^32, the scalar
 * kernels' sums. With the dot-product extension (the __neondot files, compiled with +dotprod: the Cortex-A76 of a
 * Raspberry Pi 5) 16 bytes a step through sdot, each group of 4 signed products into an int32 lane, exact; then
 * (and without it, on aarch64 and armv7) 8 bytes a step: vmull_s8 into int16 (every product of two int8 fits,
 * even -128 * -128) and vpadalq_s16 into int32 lanes; a row's last kc % 8 bytes one by one (reading past the row
 * could fault). All adds wrap. */
#ifndef RILLET_S8_ROWDOT_SUMS_NEON_H
#define RILLET_S8_ROWDOT_SUMS_NEON_H

#include <arm_neon.h>
#include <stddef.h>
#include <stdint.h>

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
    for (; k + 16 <= kc; k += 16) {
        const int8x16_t xv = vld1q_s8(x + k);
        a0 = vdotq_s32(a0, xv, vld1q_s8(w0 + k));
        a1 = vdotq_s32(a1, xv, vld1q_s8(w1 + k));
        a2 = vdotq_s32(a2, xv, vld1q_s8(w2 + k));
        a3 = vdotq_s32(a3, xv, vld1q_s8(w3 + k));
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

#endif
