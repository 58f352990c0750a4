/* qd8_f32_qc8w_igemm_6x16c2__avx2.c — hybrid IGEMM (int8 rows through an indirection buffer, per-channel int8
 * weights, float32 out), 6 rows x 16 columns, kr 2, AVX2: qs8_qc8w_igemm_6x16c2__avx2's extended-row path (all
 * taps sign-extended to int16 back to back once per call when they fit KBLOCK, else per panel and chunk;
 * vpmaddwd pairs) between a start of -zero_point * sum(w) and XNNPACK's float epilogue
 * (qd8_f32_qc8w_6x16c2__avx2.h). */
#include "qd8_f32_qc8w_6x16c2__avx2.h"

void qd8_f32_qc8w_igemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                     const void *w, float *c, size_t c_stride, const rl_qd8_row_quantization *rows,
                                     const rl_f32_minmax_params *params) {
    float *out[MR];
    const int8_t *const *taps[MR]; /* taps[i][p * MR] is row i of tap p */
    const rl_qd8_row_quantization *rq[MR];
    for (size_t i = 0; i < MR; ++i) {
        out[i] = i < mr ? c + i * c_stride : out[i - 1];
        taps[i] = i < mr ? indirection + i : taps[i - 1];
        rq[i] = i < mr ? rows + i : rq[i - 1];
    }
    const size_t kc_rounded = (kc + 1) & ~(size_t)1;
    int16_t x[MR][KBLOCK + 2];
    const int once = ks * kc_rounded <= KBLOCK;
    if (once) {
        for (size_t p = 0; p < ks; ++p)
            for (size_t i = 0; i < MR; ++i) extend_row(taps[i][p * MR], kc, x[i] + p * kc_rounded);
    }
    const size_t steps = once ? 1 : ks * ((kc + KBLOCK - 1) / KBLOCK);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        const int wide = n > NARROW_NR;
        const size_t width = wide ? NR : NARROW_NR;
        __m256i acc[2 * MR];
        start_accumulators(panel, rq, acc);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        size_t p = 0, k0 = 0; /* a step is tap p's chunk from k0 on */
        for (size_t step = 0; step < steps; ++step) {
            size_t pairs = ks * kc_rounded / 2;
            if (!once) {
                const size_t len = kc - k0 < KBLOCK ? kc - k0 : KBLOCK;
                for (size_t i = 0; i < MR; ++i) extend_row(taps[i][p * MR] + k0, len, x[i]);
                pairs = (len + 1) / 2;
                k0 += KBLOCK;
                if (k0 >= kc) k0 = 0, ++p;
            }
            wk = accumulate(x, pairs, wk, acc, wide);
        }
        float *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        store_floats(acc, (const float *)(const void *)wk, width, n, c_at, rq, params);
        panel = (const unsigned char *)(wk + 2 * width * sizeof(float));
    }
}
