/* s8_s32_rowdot_1x4__neon.c — int8-to-int32 row-dot (rowdot.h), NEON without dot products (aarch64 and armv7):
 * four weight rows per step, the k loop of s8_rowdot_sums__neon.h (8 bytes a step: vmull_s8, vpadalq_s16), the
 * sums plus the bias stored as they are. */
#include <arm_neon.h>

#include "rowdot.h"
#include "s8_rowdot_sums__neon.h"

void s8_s32_rowdot_1x4__neon(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
                             const int32_t *bias, int32_t *y, size_t y_stride) {
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const int8_t *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        const int32x4_t vbias = vld1q_s32(rl_rowdot_step_params_at(bias, NULL, n0, rows).bias);
        for (size_t i = 0; i < m; ++i) {
            const int32x4_t acc = vaddq_s32(vbias, rl_s8_rowdot_sums4__neon(x + i * x_stride, w0, w1, w2, w3, kc));
            int32_t *yi = y + i * y_stride + n0;
            if (rows == 4) {
                vst1q_s32(yi, acc);
            } else {
                int32_t all[4];
                vst1q_s32(all, acc);
                rl_rowdot_store_s32x4(yi, all, rows);
            }
        }
    }
}
