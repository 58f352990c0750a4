/* qd8_f32_qc8w_gemm_6x16c2__avx2.c — hybrid GEMM (int8 rows quantized per row, per-channel int8 weights,
 * float32 out), 6 rows x 16 columns, kr 2, AVX2: qs8_qc8w_gemm_6x16c2__avx2's products (rows sign-extended to
 * int16 once per call, pairs multiplied with vpmaddwd: exact, wrapping int32 sums) between a start of
 * -zero_point * sum(w) and XNNPACK's float epilogue (qd8_f32_qc8w_6x16c2__avx2.h). */
#include "qd8_f32_qc8w_6x16c2__avx2.h"

void qd8_f32_qc8w_gemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                    const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                    const rl_f32_minmax_params *params) {
    /* Rows past mr alias the last real one: computed twice, stored twice with the same values. */
    const int8_t *in[MR];
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    for (size_t i = 0; i < MR; ++i) {
        in[i] = i < mr ? a + i * a_stride : in[i - 1];
        out[i] = i < mr ? c + i * c_stride : out[i - 1];
        rq[i] = i < mr ? rows + i : rq[i - 1];
    }
    int16_t x[MR][KBLOCK + 2];
    const int once = kc <= KBLOCK;
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        const int wide = n > NARROW_NR;
        const size_t width = wide ? NR : NARROW_NR;
        __m256i acc[2 * MR];
        start_accumulators(panel, rq, acc);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        for (size_t k0 = 0; k0 < kc; k0 += KBLOCK) {
            const size_t len = kc - k0 < KBLOCK ? kc - k0 : KBLOCK;
            if (!once || n0 == 0) {
                for (size_t i = 0; i < MR; ++i) extend_row(in[i] + k0, len, x[i]);
            }
            wk = accumulate(x, (len + 1) / 2, wk, acc, wide);
        }
        float *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        store_floats(acc, (const float *)(const void *)wk, width, n, c_at, rq, params);
        panel = (const unsigned char *)(wk + 2 * width * sizeof(float));
    }
}
