/* qd8_f32_qc8w_6x16c2__avx2.h — what the AVX2 hybrid GEMM and IGEMM kernels share beyond the int8 kernels'
 * products (qs8_qc8w_6x16c2__avx2.h: extending rows, vpmaddwd pairs, the same packed weights): the accumulators'
 * start, -zero_point * sum(w) per row, the float epilogue, and the GEMM tile of MR rows (6, or RL_QS8_AVX2_MR set
 * by the including file: 1 for the one-row tile). Included only by AVX2 files. */
#ifndef RILLET_QD8_F32_QC8W_6X16C2_AVX2_H
#define RILLET_QD8_F32_QC8W_6X16C2_AVX2_H

#include "qd8_gemm.h"
#include "qs8_qc8w_6x16c2__avx2.h"

/* acc[i] (columns 0-7) and acc[MR + i] (8-15) = -zero_point(i) * sum(w), wrapping as the scalar kernel's. */
static inline void start_accumulators(const unsigned char *panel, const rl_qd8_row_quantization *const *rq,
                                      __m256i *acc) {
    __m256i vksum_lo, vksum_hi;
    load_biases(panel, &vksum_lo, &vksum_hi);
    const __m256i vzero = _mm256_setzero_si256();
    for (size_t i = 0; i < MR; ++i) {
        const __m256i vzp = _mm256_set1_epi32(rq[i]->zero_point);
        acc[i] = _mm256_sub_epi32(vzero, _mm256_mullo_epi32(vksum_lo, vzp));
        acc[MR + i] = _mm256_sub_epi32(vzero, _mm256_mullo_epi32(vksum_hi, vzp));
    }
}

/* y = fmaf((float)acc * row scale, weight scale, bias), clamped, for the n (<= 16) columns of each row; tail
 * points at the panel's width scales, followed by its width biases. The scalar kernel's operations in its
 * order (FMA is fused in both), so the same bits. */
static inline void store_floats(const __m256i *acc, const float *tail, size_t width, size_t n, float *const *c,
                                const rl_qd8_row_quantization *const *rq, const rl_f32_minmax_params *params) {
    const __m256 vmin = _mm256_set1_ps(params->min), vmax = _mm256_set1_ps(params->max);
    for (size_t h = 0; h * 8 < n; ++h) {
        const __m256 vscale = _mm256_loadu_ps(tail + 8 * h), vbias = _mm256_loadu_ps(tail + width + 8 * h);
        const size_t count = n - 8 * h < 8 ? n - 8 * h : 8;
        for (size_t i = 0; i < MR; ++i) {
            const __m256 scaled = _mm256_mul_ps(_mm256_cvtepi32_ps(acc[h * MR + i]), _mm256_set1_ps(rq[i]->scale));
            const __m256 y = _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(scaled, vscale, vbias), vmin), vmax);
            if (count == 8) {
                _mm256_storeu_ps(c[i] + 8 * h, y);
            } else {
                float part[8];
                _mm256_storeu_ps(part, y);
                memcpy(c[i] + 8 * h, part, count * sizeof(float));
            }
        }
    }
}


/* The GEMM tile: rows past mr alias the last real one, computed again and stored again with the same values. Each
 * sum runs k ascending whatever MR, so the tile's size does not change the bits. */
static inline __attribute__((always_inline)) void gemm_mrx16c2(size_t mr, size_t nc, size_t kc, const int8_t *a,
                                                               size_t a_stride, const void *w, float *c,
                                                               size_t c_stride, const rl_qd8_row_quantization *rows,
                                                               const rl_f32_minmax_params *params) {
    const int8_t *in[MR];
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    for (size_t i = 0; i < MR; ++i) {
        in[i] = i == 0 || i < mr ? a + i * a_stride : in[i - 1];
        out[i] = i == 0 || i < mr ? c + i * c_stride : out[i - 1];
        rq[i] = i == 0 || i < mr ? rows + i : rq[i - 1];
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

#endif
