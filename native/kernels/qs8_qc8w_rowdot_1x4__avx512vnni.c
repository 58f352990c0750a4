/* qs8_qc8w_rowdot_1x4__avx512vnni.c — int8 row-dot (rowdot.h), AVX-512 VNNI: four weight rows per step, 64 bytes
 * of each at a time through vpdpbusd, whose first operand is unsigned: every input byte gets 128 added (xor
 * 0x80), and the config's input_offset of 128 makes the prepared bias cancel the extra 128 * sum(w). vpdpbusd
 * adds modulo 2^32 (it is the non-saturating form), so the sums are the scalar kernel's. A row's last kc % 64
 * bytes are masked loads (zero weights where the mask is off, so the input's 128 there adds nothing), which
 * never fault on what they leave out. Requantization as the AVX2 kernel's. Weight rows past nc alias the last
 * real one (computed, never stored). */
#include <immintrin.h>

#include "rowdot.h"

void qs8_qc8w_rowdot_1x4__avx512vnni(size_t m, size_t nc, size_t kc, const int8_t *x, size_t x_stride,
                                     const int8_t *w, const int32_t *bias, const float *scales, int8_t *y,
                                     size_t y_stride, const rl_qs8_requantization_params *params) {
    const __m128 vmin = _mm_set1_ps(params->min_less_zero_point), vmax = _mm_set1_ps(params->max_less_zero_point);
    const __m128i vzero_point = _mm_set1_epi32(params->output_zero_point);
    const __m512i vsign = _mm512_set1_epi8((char)0x80);
    const size_t k64 = kc - kc % 64, tail = kc % 64;
    const __mmask64 tail_mask = tail ? (__mmask64)((UINT64_C(1) << tail) - 1u) : 0;
    for (size_t n0 = 0; n0 < nc; n0 += 4) {
        const size_t rows = rl_rowdot_rows_at(nc, n0);
        const int8_t *w0, *w1, *w2, *w3;
        RL_ROWDOT_ROW_POINTERS(w, kc, n0, rows, w0, w1, w2, w3);
        const rl_rowdot_step_params p = rl_rowdot_step_params_at(bias, scales, n0, rows);
        const __m128 vscale = _mm_loadu_ps(p.scale);
        for (size_t i = 0; i < m; ++i) {
            const int8_t *xi = x + i * x_stride;
            __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
            for (size_t k = 0; k < k64; k += 64) {
                const __m512i xv = _mm512_xor_si512(_mm512_loadu_si512(xi + k), vsign);
                a0 = _mm512_dpbusd_epi32(a0, xv, _mm512_loadu_si512(w0 + k));
                a1 = _mm512_dpbusd_epi32(a1, xv, _mm512_loadu_si512(w1 + k));
                a2 = _mm512_dpbusd_epi32(a2, xv, _mm512_loadu_si512(w2 + k));
                a3 = _mm512_dpbusd_epi32(a3, xv, _mm512_loadu_si512(w3 + k));
            }
            if (tail) {
                const __m512i xv = _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail_mask, xi + k64), vsign);
                a0 = _mm512_dpbusd_epi32(a0, xv, _mm512_maskz_loadu_epi8(tail_mask, w0 + k64));
                a1 = _mm512_dpbusd_epi32(a1, xv, _mm512_maskz_loadu_epi8(tail_mask, w1 + k64));
                a2 = _mm512_dpbusd_epi32(a2, xv, _mm512_maskz_loadu_epi8(tail_mask, w2 + k64));
                a3 = _mm512_dpbusd_epi32(a3, xv, _mm512_maskz_loadu_epi8(tail_mask, w3 + k64));
            }
            /* Lane sums wrap like every other add here (vpaddd), so their order does not matter. */
            const __m128i acc = _mm_setr_epi32(
                (int32_t)((uint32_t)p.bias[0] + (uint32_t)_mm512_reduce_add_epi32(a0)),
                (int32_t)((uint32_t)p.bias[1] + (uint32_t)_mm512_reduce_add_epi32(a1)),
                (int32_t)((uint32_t)p.bias[2] + (uint32_t)_mm512_reduce_add_epi32(a2)),
                (int32_t)((uint32_t)p.bias[3] + (uint32_t)_mm512_reduce_add_epi32(a3)));
            __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(acc), vscale);
            v = _mm_min_ps(_mm_max_ps(v, vmin), vmax);
            const __m128i q32 = _mm_add_epi32(_mm_cvtps_epi32(v), vzero_point);
            const __m128i q8 = _mm_packs_epi16(_mm_packs_epi32(q32, q32), q32);
            int8_t *yi = y + i * y_stride + n0;
            rl_rowdot_store_s8x4(yi, (uint32_t)_mm_cvtsi128_si32(q8), rows);
        }
    }
}
