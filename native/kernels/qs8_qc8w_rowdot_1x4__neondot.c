/* qs8_qc8w_rowdot_1x4__neondot.c — int8 row-dot (rowdot.h), NEON with the dot-product extension (aarch64
 * armv8.2-a+dotprod: the Cortex-A76 of a Raspberry Pi 5): the plain NEON kernel compiled with +dotprod, so that
 * s8_rowdot_sums__neon.h's k loop takes 16 bytes a step through sdot. The plain kernel's vmull and vpadal per 8
 * bytes made an int8 classifier head (EfficientNet-B0's 1280 -> 1000, one row) 0.68M instructions per invoke under
 * qemu, XNNPACK's dot-product GEMM 0.18M. */
#include "qs8_requantize__neon.h"
#include "rowdot.h"
#include "s8_rowdot_sums__neon.h"

void qs8_qc8w_rowdot_1x4__neondot(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                                  const int32_t *bias, const float *scales, int8_t *y, size_t y_stride,
                                  const rl_qs8_requantization_params *params) {
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const int8_t *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        const rl_rowdot_step_params p = rl_rowdot_step_params_at(bias, scales, n0, rows);
        const int32x4_t vbias = vld1q_s32(p.bias);
        const float32x4_t vscale = vld1q_f32(p.scale);
        for (size_t i = 0; i < m; ++i) {
            const int32x4_t acc = vaddq_s32(vbias, rl_s8_rowdot_sums4__neon(x + i * x_stride, w0, w1, w2, w3, kc));
            const int32x4_t q32 = rl_neon_requantize4(acc, vscale, &rq);
            const int8x8_t q8 = vqmovn_s16(vcombine_s16(vqmovn_s32(q32), vqmovn_s32(q32)));
            rl_rowdot_store_s8x4(y + i * y_stride + n0, vget_lane_u32(vreinterpret_u32_s8(q8), 0), rows);
        }
    }
}
