/* qdu8_f32_qc8w_gemm_1x16c4__avx512vnni.c — the hybrid GEMM of one row (a decoder step's FULLY_CONNECTED) on rows
 * quantized as f32_qdu8_quantize__avx512 writes them. The 8-row kernel computes a lone row 8 times (its rows past
 * mr alias the last), and one row's products in one chain wait on vpdpbusd's latency at every step: here four
 * chains over k, 16 bytes a step, added at the end (int32 sums wrap, so in any order they are the 8-row
 * kernel's: the same bits). */
#define RL_QD8_VNNI_MR 1
#include "qd8_f32_qc8w_mrx16c4__avx512vnni.h"

void qdu8_f32_qc8w_gemm_1x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride,
                                           const void *w, float *c, size_t c_stride,
                                           const rl_qd8_row_quantization *rows, const rl_f32_minmax_params *params) {
    (void)mr, (void)a_stride, (void)c_stride;
    const size_t kfull = kc & ~(size_t)3;
    const __m512i vsign = _mm512_setzero_si512(); /* unused: u8 rows are not flipped */
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t width = nc - n0 <= 8 ? 8 : NR;
        const __mmask16 lanes = (__mmask16)((UINT32_C(1) << width) - 1);
        __m512i vacc0 = start_row(load_columns(panel, lanes), rows);
        __m512i vacc1 = _mm512_setzero_si512(), vacc2 = _mm512_setzero_si512(), vacc3 = _mm512_setzero_si512();
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        size_t k = 0;
        for (; k + 16 <= kfull; k += 16, wk += 16 * width) {
            vacc0 = dot_block(vacc0, a + k, load_columns(wk, lanes), vsign, 1);
            vacc1 = dot_block(vacc1, a + k + 4, load_columns(wk + 4 * width, lanes), vsign, 1);
            vacc2 = dot_block(vacc2, a + k + 8, load_columns(wk + 8 * width, lanes), vsign, 1);
            vacc3 = dot_block(vacc3, a + k + 12, load_columns(wk + 12 * width, lanes), vsign, 1);
        }
        for (; k < kfull; k += 4, wk += 4 * width) vacc0 = dot_block(vacc0, a + k, load_columns(wk, lanes), vsign, 1);
        if (k < kc) {
            vacc0 = _mm512_dpbusd_epi32(vacc0, broadcast_block(a, k, kc, 1), load_columns(wk, lanes));
            wk += 4 * width;
        }
        vacc0 = _mm512_add_epi32(_mm512_add_epi32(vacc0, vacc1), _mm512_add_epi32(vacc2, vacc3));
        const float *tail = (const float *)(const void *)wk;
        const __m512 vscale = _mm512_castsi512_ps(load_columns(tail, lanes));
        const __m512 vbias = _mm512_castsi512_ps(load_columns(tail + width, lanes));
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        store_row(c + n0, (__mmask16)((UINT32_C(1) << n) - 1), vacc0, rows, vscale, vbias, params);
        panel = (const unsigned char *)(tail + 2 * width); /* past the scales and biases */
    }
}
