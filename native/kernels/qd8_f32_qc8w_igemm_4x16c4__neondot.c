/* qd8_f32_qc8w_igemm_4x16c4__neondot.c — hybrid IGEMM (int8 rows through an indirection buffer, per-channel int8
 * weights, float32 out), 4 rows x 16 columns, kr 4, aarch64 with the dot-product instructions: as the GEMM, with
 * the k loop walking the ks taps' rows in turn (tap p's rows are indirection[p * MR + i]; only the first mr of each
 * are read; each tap's depth is packed rounded up to 4, its partial last block read without passing kc). */
#include <math.h>

#include "qd8_f32_qc8w_4x16c4__neondot.h"

void qd8_f32_qc8w_igemm_4x16c4__neondot(size_t mr, size_t nc, size_t kc, size_t ks,
                                        const int8_t *const *indirection, const void *w, float *c, size_t c_stride,
                                        const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    rl_qd8_tile_rows(MR, mr, NULL, 0, c, c_stride, rows, NULL, out, rq);
    const int clamp = params->min != -INFINITY || params->max != INFINITY;
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t n = nc - n0 < NR ? nc - n0 : NR, width = n > NARROW_NR ? NR : NARROW_NR;
        const int wide = width == NR;
        int32x4_t acc[4 * MR];
        start_accumulators(panel, wide, rq, acc, MR);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *const *tap = indirection + p * MR;
            const int8_t *in[MR];
            rl_qd8_tap_rows(MR, mr, tap, in);
            /* Two call sites, so each inlines with its width a constant. */
            wk = wide ? accumulate_4x16c4(in, kc, wk, acc, 1, MR) : accumulate_4x16c4(in, kc, wk, acc, 0, MR);
        }
        const unsigned char *tail = (const unsigned char *)wk;
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        if (wide)
            store_floats_4x16(c_at, n, 1, acc, tail, rq, params, MR, clamp);
        else
            store_floats_4x16(c_at, n, 0, acc, tail, rq, params, MR, clamp);
        panel = tail + 2 * width * sizeof(float);
    }
}
