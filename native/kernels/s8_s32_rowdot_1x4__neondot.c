/* s8_s32_rowdot_1x4__neondot.c — int8-to-int32 row-dot (rowdot.h), NEON with the dot-product extension (aarch64
 * armv8.2-a+dotprod: the Cortex-A76 of a Raspberry Pi 5): the plain NEON kernel compiled with +dotprod, so that
 * s8_rowdot_sums__neon.h's k loop takes 16 bytes a step through sdot. */
#include <arm_neon.h>

#include "rowdot.h"
#include "s8_rowdot_sums__neon.h"

void s8_s32_rowdot_1x4__neondot(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride, const int8_t *w,
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
