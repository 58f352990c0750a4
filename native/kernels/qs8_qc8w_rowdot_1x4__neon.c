/* qs8_qc8w_rowdot_1x4__neon.c — int8 row-dot (rowdot.h), NEON without dot products (aarch64 and armv7): four
 * weight rows per step, the k loop of s8_rowdot_sums__neon.h (8 bytes a step: vmull_s8, vpadalq_s16), the
 * requantization qs8_requantize__neon.h's, bit for bit with the scalar kernel. */
#include "qs8_requantize__neon.h"
#include "rowdot.h"
#include "s8_rowdot_sums__neon.h"

void qs8_qc8w_rowdot_1x4__neon(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
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
