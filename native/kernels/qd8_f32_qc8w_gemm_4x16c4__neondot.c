/* qd8_f32_qc8w_gemm_4x16c4__neondot.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights,
 * float32 out), 4 rows x 16 columns, kr 4, aarch64 with the dot-product instructions (Cortex-A76 / Pi 5 and
 * later): the int8 kernel's sdot k loop between a start of -zero_point * sum(w) and the float epilogue
 * (qd8_f32_qc8w_4x16c4__neondot.h). 16 products per sdot where the 4x8c1 NEON kernel's vmlal does 4. Rows past mr
 * alias the last real one; one row (a FULLY_CONNECTED on one token) runs the same loop on one row's accumulators,
 * as the int8 kernel does, rather than four rows' sdots for one. */
#include <math.h>

#include "qd8_f32_qc8w_4x16c4__neondot.h"

static inline __attribute__((always_inline)) void gemm_rows(size_t rows, size_t nc, size_t kc,
                                                            const int8_t *const *in, const void *w,
                                                            float *const *out,
                                                            const rl_qd8_row_quantization *const *rq,
                                                            const rl_f32_minmax_params *params) {
    const int clamp = params->min != -INFINITY || params->max != INFINITY;
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t n = nc - n0 < NR ? nc - n0 : NR, width = n > NARROW_NR ? NR : NARROW_NR;
        const int wide = width == NR;
        int32x4_t acc[4 * MR];
        start_accumulators(panel, wide, rq, acc, rows);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        /* Two call sites, so each inlines with its width a constant. */
        const unsigned char *tail = (const unsigned char *)(wide ? accumulate_4x16c4(in, kc, wk, acc, 1, rows)
                                                                 : accumulate_4x16c4(in, kc, wk, acc, 0, rows));
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        if (wide)
            store_floats_4x16(c_at, n, 1, acc, tail, rq, params, rows, clamp);
        else
            store_floats_4x16(c_at, n, 0, acc, tail, rq, params, rows, clamp);
        panel = tail + 2 * width * sizeof(float);
    }
}

RL_QD8_GEMM_ONE_ROW_OR_TILE(qd8_f32_qc8w_gemm_4x16c4__neondot, MR, gemm_rows)
