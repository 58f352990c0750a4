/* qd8_f32_qc8w_igemm_8x16c4__avx512vnni.c — hybrid IGEMM (rows through an indirection buffer, padding taps at
 * the row's zero point), per-channel int8 weights, float32 out, 8 rows x 16 columns, kr 4, AVX-512 VNNI: the
 * GEMM's steps over each tap's rows (qd8_f32_qc8w_8x16c4__avx512vnni.h has the arithmetic). */
#include "qd8_f32_qc8w_8x16c4__avx512vnni.h"

void qd8_f32_qc8w_igemm_8x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks,
                                           const int8_t *const *indirection, const void *w, float *c,
                                           size_t c_stride, const rl_qd8_row_quantization *rows,
                                           const rl_f32_minmax_params *params) {
    /* Rows past mr alias the last real one: computed twice, stored twice with the same values. */
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    for (size_t i = 0; i < MR; ++i) {
        out[i] = i < mr ? c + i * c_stride : out[i - 1];
        rq[i] = i < mr ? rows + i : rq[i - 1];
    }
    const size_t kfull = kc & ~(size_t)3;
    const __m512i vsign = _mm512_set1_epi32((int)UINT32_C(0x80808080));
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t width = nc - n0 <= 8 ? 8 : NR;
        const __mmask16 lanes = (__mmask16)((UINT32_C(1) << width) - 1);
        const __m512i vksum = load_columns(panel, lanes);
        __m512i vacc0 = start_row(vksum, rq[0]);
        __m512i vacc1 = start_row(vksum, rq[1]);
        __m512i vacc2 = start_row(vksum, rq[2]);
        __m512i vacc3 = start_row(vksum, rq[3]);
        __m512i vacc4 = start_row(vksum, rq[4]);
        __m512i vacc5 = start_row(vksum, rq[5]);
        __m512i vacc6 = start_row(vksum, rq[6]);
        __m512i vacc7 = start_row(vksum, rq[7]);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *a0 = indirection[p * MR];
            const int8_t *a1 = mr > 1 ? indirection[p * MR + 1] : a0;
            const int8_t *a2 = mr > 2 ? indirection[p * MR + 2] : a1;
            const int8_t *a3 = mr > 3 ? indirection[p * MR + 3] : a2;
            const int8_t *a4 = mr > 4 ? indirection[p * MR + 4] : a3;
            const int8_t *a5 = mr > 5 ? indirection[p * MR + 5] : a4;
            const int8_t *a6 = mr > 6 ? indirection[p * MR + 6] : a5;
            const int8_t *a7 = mr > 7 ? indirection[p * MR + 7] : a6;
            size_t k = 0;
            for (; k < kfull; k += 4, wk += 4 * width) {
                const __m512i vw = load_columns(wk, lanes);
                vacc0 = dot_block(vacc0, a0 + k, vw, vsign, 0);
                vacc1 = dot_block(vacc1, a1 + k, vw, vsign, 0);
                vacc2 = dot_block(vacc2, a2 + k, vw, vsign, 0);
                vacc3 = dot_block(vacc3, a3 + k, vw, vsign, 0);
                vacc4 = dot_block(vacc4, a4 + k, vw, vsign, 0);
                vacc5 = dot_block(vacc5, a5 + k, vw, vsign, 0);
                vacc6 = dot_block(vacc6, a6 + k, vw, vsign, 0);
                vacc7 = dot_block(vacc7, a7 + k, vw, vsign, 0);
            }
            if (k < kc) {
                const __m512i vw = load_columns(wk, lanes);
                vacc0 = _mm512_dpbusd_epi32(vacc0, broadcast_block(a0, k, kc, 0), vw);
                vacc1 = _mm512_dpbusd_epi32(vacc1, broadcast_block(a1, k, kc, 0), vw);
                vacc2 = _mm512_dpbusd_epi32(vacc2, broadcast_block(a2, k, kc, 0), vw);
                vacc3 = _mm512_dpbusd_epi32(vacc3, broadcast_block(a3, k, kc, 0), vw);
                vacc4 = _mm512_dpbusd_epi32(vacc4, broadcast_block(a4, k, kc, 0), vw);
                vacc5 = _mm512_dpbusd_epi32(vacc5, broadcast_block(a5, k, kc, 0), vw);
                vacc6 = _mm512_dpbusd_epi32(vacc6, broadcast_block(a6, k, kc, 0), vw);
                vacc7 = _mm512_dpbusd_epi32(vacc7, broadcast_block(a7, k, kc, 0), vw);
                wk += 4 * width;
            }
        }
        vacc0 = settled(vacc0);
        vacc1 = settled(vacc1);
        vacc2 = settled(vacc2);
        vacc3 = settled(vacc3);
        vacc4 = settled(vacc4);
        vacc5 = settled(vacc5);
        vacc6 = settled(vacc6);
        vacc7 = settled(vacc7);
        const float *tail = (const float *)(const void *)wk;
        const __m512 vscale = _mm512_castsi512_ps(load_columns(tail, lanes));
        const __m512 vbias = _mm512_castsi512_ps(load_columns(tail + width, lanes));
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        const __mmask16 vmask = (__mmask16)((UINT32_C(1) << n) - 1);
        store_row(out[0] + n0, vmask, vacc0, rq[0], vscale, vbias, params);
        store_row(out[1] + n0, vmask, vacc1, rq[1], vscale, vbias, params);
        store_row(out[2] + n0, vmask, vacc2, rq[2], vscale, vbias, params);
        store_row(out[3] + n0, vmask, vacc3, rq[3], vscale, vbias, params);
        store_row(out[4] + n0, vmask, vacc4, rq[4], vscale, vbias, params);
        store_row(out[5] + n0, vmask, vacc5, rq[5], vscale, vbias, params);
        store_row(out[6] + n0, vmask, vacc6, rq[6], vscale, vbias, params);
        store_row(out[7] + n0, vmask, vacc7, rq[7], vscale, vbias, params);
        panel = (const unsigned char *)(tail + 2 * width); /* past the scales and biases */
    }
}
