/* f32_rowdot_1x4__neon.c — float32 row-dot (rowdot.h), NEON (aarch64 and armv7): four weight rows per step,
 * each summed in two q-register accumulators (k in steps of 8), reduced across lanes once per row; a row's last
 * kc % 4 floats are added one by one (NEON has no masked load, and reading past the row could fault). aarch64
 * fuses the multiply and add (vfmaq_f32); armv7 rounds them apart (vmlaq_f32). Weight rows past nc alias the
 * last real one (computed, never stored). The k loop steps its five pointers in its loads (ld1 of a register pair
 * with post-increment on aarch64): with loads at a register offset it ran 21 instructions per 8 k instead of 15,
 * and MobileNetV2's 1280 -> 1001 classifier 0.91M instructions per invoke (XNNPACK's 1x8 GEMM 0.61M). */
#include <arm_neon.h>

#include "f32_exp__neon.h"
#include "rowdot.h"

#if defined(__aarch64__)
#define MULADD(acc, x, w) vfmaq_f32(acc, x, w)
#else
#define MULADD(acc, x, w) vmlaq_f32(acc, x, w)
#endif

/* [sum(a0), sum(a1), sum(a2), sum(a3)], with pairwise adds that armv7 has too. */
static float32x4_t reduce4(float32x4_t a0, float32x4_t a1, float32x4_t a2, float32x4_t a3) {
    const float32x2_t h0 = vadd_f32(vget_low_f32(a0), vget_high_f32(a0));
    const float32x2_t h1 = vadd_f32(vget_low_f32(a1), vget_high_f32(a1));
    const float32x2_t h2 = vadd_f32(vget_low_f32(a2), vget_high_f32(a2));
    const float32x2_t h3 = vadd_f32(vget_low_f32(a3), vget_high_f32(a3));
    return vcombine_f32(vpadd_f32(h0, h1), vpadd_f32(h2, h3));
}

void f32_rowdot_1x4__neon(size_t m, size_t nc, size_t kc, const float *x, size_t x_stride, const float *w,
                          const float *bias, float *y, size_t y_stride, const rl_f32_minmax_params *params) {
    const float32x4_t vmin = vdupq_n_f32(params->min), vmax = vdupq_n_f32(params->max);
    const size_t k8 = kc - kc % 8, k4 = kc - kc % 4;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const float *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        float b[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (bias)
            for (size_t j = 0; j < rows; ++j) b[j] = bias[n0 + j];
        const float32x4_t vbias = vld1q_f32(b);
        for (size_t i = 0; i < m; ++i) {
            const float *xi = x + i * x_stride;
            float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
            float32x4_t c0 = a0, c1 = a0, c2 = a0, c3 = a0;
            size_t k = 0;
            const float *p0 = w0, *p1 = w1, *p2 = w2, *p3 = w3, *px = xi;
            for (; k < k8; k += 8) {
                const float32x4x2_t xv = rl_neon_load8(px), v0 = rl_neon_load8(p0), v1 = rl_neon_load8(p1),
                                    v2 = rl_neon_load8(p2), v3 = rl_neon_load8(p3);
                px += 8, p0 += 8, p1 += 8, p2 += 8, p3 += 8;
                a0 = MULADD(a0, xv.val[0], v0.val[0]);
                a1 = MULADD(a1, xv.val[0], v1.val[0]);
                a2 = MULADD(a2, xv.val[0], v2.val[0]);
                a3 = MULADD(a3, xv.val[0], v3.val[0]);
                c0 = MULADD(c0, xv.val[1], v0.val[1]);
                c1 = MULADD(c1, xv.val[1], v1.val[1]);
                c2 = MULADD(c2, xv.val[1], v2.val[1]);
                c3 = MULADD(c3, xv.val[1], v3.val[1]);
            }
            if (k < k4) {
                const float32x4_t xv = vld1q_f32(xi + k);
                a0 = MULADD(a0, xv, vld1q_f32(w0 + k));
                a1 = MULADD(a1, xv, vld1q_f32(w1 + k));
                a2 = MULADD(a2, xv, vld1q_f32(w2 + k));
                a3 = MULADD(a3, xv, vld1q_f32(w3 + k));
                k += 4;
            }
            float32x4_t v = reduce4(vaddq_f32(a0, c0), vaddq_f32(a1, c1), vaddq_f32(a2, c2), vaddq_f32(a3, c3));
            if (k < kc) {
                float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                for (; k < kc; ++k) {
                    t[0] += xi[k] * w0[k];
                    t[1] += xi[k] * w1[k];
                    t[2] += xi[k] * w2[k];
                    t[3] += xi[k] * w3[k];
                }
                v = vaddq_f32(v, vld1q_f32(t));
            }
            v = vminq_f32(vmaxq_f32(vaddq_f32(vbias, v), vmin), vmax);
            float *yi = y + i * y_stride + n0;
            if (rows == 4) {
                vst1q_f32(yi, v);
            } else {
                float out[4];
                vst1q_f32(out, v);
                for (size_t j = 0; j < rows; ++j) yi[j] = out[j];
            }
        }
    }
}
