/* qd8_f32_qc8w_igemm_4x8c1__neon.c — hybrid IGEMM (int8 rows through an indirection buffer, per-channel int8
 * weights, float32 out), 4 rows x 8 columns, kr 1, NEON without dot products (aarch64 and armv7): as the GEMM,
 * with the k loop walking the ks taps' rows in turn (tap p's rows are indirection[p * MR + i]; only the first
 * mr of each are read). */
#include "qd8_f32_qc8w_4x8c1__neon.h"

void qd8_f32_qc8w_igemm_4x8c1__neon(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params) {
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    rl_qd8_tile_rows(MR, mr, NULL, 0, c, c_stride, rows, NULL, out, rq);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        int32x4_t acc[2 * MR];
        start_accumulators(panel, rq, acc);
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *const *tap = indirection + p * MR;
            const int8_t *in[MR];
            rl_qd8_tap_rows(MR, mr, tap, in);
            wk = accumulate_4x8c1(in, kc, wk, acc, MR);
        }
        float *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
        store_floats_4x8(c_at, nc - n0 < NR ? nc - n0 : NR, acc, (const unsigned char *)wk, rq, params);
        panel = (const unsigned char *)wk + 2 * NR * sizeof(float);
    }
}
