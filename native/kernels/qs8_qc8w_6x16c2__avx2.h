/* qs8_qc8w_6x16c2__avx2.h — what the 6x16c2 AVX2 GEMM and IGEMM kernels share: extending rows to int16,
 * loading kr-2 weights, accumulating pairs with vpmaddwd, and the fp32 requantization and stores (see the
 * kernels' file comments for why each is done as it is). Included only by files built with AVX2 flags. */
#ifndef RILLET_QS8_QC8W_6X16C2_AVX2_H
#define RILLET_QS8_QC8W_6X16C2_AVX2_H

#include <immintrin.h>
#include <string.h>

#include "qs8_configs.h"

/* KBLOCK: the int16 inputs a row's buffer holds (plus 2 for extend_row's writes past len); 336 is
 * mobilenet_v2's deepest 1x1 convolution, and the 6 rows' buffer stays under 4 KiB of stack. */
#ifndef RL_QS8_AVX2_MR
#define RL_QS8_AVX2_MR 6 /* the hybrid kernels' one-row tile sets 1 (qd8_f32_qc8w_gemm_1x16c2__avx2.c) */
#endif
enum { MR = RL_QS8_AVX2_MR, NR = 16, KBLOCK = 336 };
/* A narrow last panel (gemm.h: 1 to 8 columns left) is packed 8 columns wide. */
enum { NARROW_NR = 8 };

/* dst[0..len) = src[0..len) as int16, and dst[len] = 0 when len is odd (the zero pairs with an odd kc's last
 * input; its weight is zero too). Reads only src[0..len); may write dst[len + 1 .. 3] when len < 4. The last
 * pieces overlap what is done instead of looping over single bytes; an odd len's last piece is loaded one
 * byte early and shifted, so its zero lands at dst[len] in the same store (no pair's broadcast load then
 * straddles two stores, which would stop store-to-load forwarding). */
static inline void extend_row(const int8_t *src, size_t len, int16_t *dst) {
    const size_t odd = len & 1;
    if (len >= 16) {
        size_t k = 0;
        for (; k + 16 <= len; k += 16) {
            _mm256_storeu_si256((__m256i *)(void *)(dst + k),
                                _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(src + k))));
        }
        if (k != len || odd) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(src + len - 16));
            if (odd) v = _mm_srli_si128(v, 1);
            _mm256_storeu_si256((__m256i *)(void *)(dst + len - 16 + odd), _mm256_cvtepi8_epi16(v));
        }
    } else if (len >= 8) {
        _mm_storeu_si128((__m128i *)(void *)dst,
                         _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)src)));
        if (len != 8) {
            __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(src + len - 8));
            if (odd) v = _mm_srli_epi64(v, 8);
            _mm_storeu_si128((__m128i *)(void *)(dst + len - 8 + odd), _mm_cvtepi8_epi16(v));
        }
    } else if (len >= 4) {
        int32_t head;
        memcpy(&head, src, sizeof head);
        _mm_storel_epi64((__m128i *)(void *)dst, _mm_cvtepi8_epi16(_mm_cvtsi32_si128(head)));
        if (len != 4) {
            uint32_t tail;
            memcpy(&tail, src + len - 4, sizeof tail);
            if (odd) tail >>= 8;
            _mm_storel_epi64((__m128i *)(void *)(dst + len - 4 + odd),
                             _mm_cvtepi8_epi16(_mm_cvtsi32_si128((int32_t)tail)));
        }
    } else {
        uint32_t bits = (uint8_t)src[0];
        if (len >= 2) bits |= (uint32_t)(uint8_t)src[1] << 8;
        if (len == 3) bits |= (uint32_t)(uint8_t)src[2] << 16;
        _mm_storel_epi64((__m128i *)(void *)dst, _mm_cvtepi8_epi16(_mm_cvtsi32_si128((int32_t)bits)));
    }
}

/* One pair of a row (2 int16) in all 8 dwords. */
static inline __m256i broadcast_pair(const int16_t *x) {
    int32_t pair;
    memcpy(&pair, x, sizeof pair);
    return _mm256_set1_epi32(pair);
}

/* 8 columns x 2 k of weights, sign-extended to int16. */
static inline __m256i load_weights(const int8_t *w) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
}

/* Adds `pairs` pairs of the MR extended rows x times the weights at w (NR columns a pair, NARROW_NR when not
 * wide) into the MR rows' accumulators of columns 0-7 (acc[0..MR)) and, when wide, 8-15 (acc[MR..2 MR)).
 * Returns the weights past them. */
static inline const int8_t *accumulate(int16_t (*x)[KBLOCK + 2], size_t pairs, const int8_t *w, __m256i *acc,
                                int wide) {
    if (wide) {
        for (size_t k = 0; k < 2 * pairs; k += 2) {
            const __m256i vw_lo = load_weights(w), vw_hi = load_weights(w + 16);
            w += 2 * NR;
            for (size_t i = 0; i < MR; ++i) {
                const __m256i vb = broadcast_pair(x[i] + k);
                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(vb, vw_lo));
                acc[MR + i] = _mm256_add_epi32(acc[MR + i], _mm256_madd_epi16(vb, vw_hi));
            }
        }
    } else {
        for (size_t k = 0; k < 2 * pairs; k += 2) {
            const __m256i vw_lo = load_weights(w);
            w += 2 * NARROW_NR;
            for (size_t i = 0; i < MR; ++i) {
                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(broadcast_pair(x[i] + k), vw_lo));
            }
        }
    }
    return w;
}

/* The panel's biases: columns 0-7, and 8-15. A narrow panel has 8: its second load is of the 32 bytes after them
 * (weights, then scales: still the panel's), whose sums nothing stores; loading without a test on the width kept
 * a one-panel call (an RGB first layer) at its former time, where the test cost it 2%. */
static inline void load_biases(const unsigned char *panel, __m256i *vbias_lo, __m256i *vbias_hi) {
    *vbias_lo = _mm256_loadu_si256((const __m256i *)(const void *)panel);
    *vbias_hi = _mm256_loadu_si256((const __m256i *)(const void *)(panel + 32));
}

/* One row's 8 int32 sums, scaled, clamped above, rounded to nearest even (still without the zero point). */
static inline __m256i scale_round(__m256i vacc, __m256 vscale, __m256 vmax) {
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(vacc), vscale), vmax));
}

/* Writes the n (< 16) low bytes of v at c. */
static inline void store_tail(int8_t *c, __m128i v, size_t n) {
    if (n & 8) {
        _mm_storel_epi64((__m128i *)(void *)c, v);
        c += 8, v = _mm_unpackhi_epi64(v, v);
    }
    if (n & 4) {
        const uint32_t part = (uint32_t)_mm_cvtsi128_si32(v);
        memcpy(c, &part, sizeof part);
        c += 4, v = _mm_srli_epi64(v, 32);
    }
    if (n & 2) {
        const uint16_t part = (uint16_t)_mm_cvtsi128_si32(v);
        memcpy(c, &part, sizeof part);
        c += 2, v = _mm_srli_epi64(v, 16);
    }
    if (n & 1) *c = (int8_t)_mm_cvtsi128_si32(v);
}

/* Requantizes the MR x (8 or 16) accumulators and stores the n (<= 16) columns of each row. */
typedef struct {
    __m256 vmax;         /* max_less_zero_point */
    __m256i vzero_point; /* int16 */
    __m256i vmin;        /* output minimum, int8 */
} requantization;

/* Read once per call: stores through int8_t pointers could alias params, so the compiler would reload them. */
static inline requantization requantization_of(const rl_qs8_requantization_params *params) {
    const requantization rq = {
        .vmax = _mm256_set1_ps(params->max_less_zero_point),
        .vzero_point = _mm256_set1_epi16((int16_t)params->output_zero_point),
        .vmin = _mm256_set1_epi8((int8_t)((int32_t)params->min_less_zero_point + params->output_zero_point))};
    return rq;
}

static inline void requantize_store(const __m256i *acc, const float *scales, size_t n, int8_t *const *c,
                             const requantization *rq) {
    const __m256 vmax = rq->vmax;
    const __m256i vzero_point = rq->vzero_point, vmin = rq->vmin;
    /* vpacks* interleave 128-bit lanes: this puts each row's bytes back in column order. */
    const __m256i vorder = _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0);
    const __m256 vscale_lo = _mm256_loadu_ps(scales);
    if (n > 8) {
        const __m256 vscale_hi = _mm256_loadu_ps(scales + 8);
        for (size_t i = 0; i < MR; i += 2) {
            /* int16: row i columns 0-3, 8-11 | 4-7, 12-15; bytes: rows i, i + 1 in that order. */
            const __m256i v0 = _mm256_adds_epi16(_mm256_packs_epi32(scale_round(acc[i], vscale_lo, vmax),
                                                                    scale_round(acc[MR + i], vscale_hi, vmax)),
                                                 vzero_point);
            const __m256i v1 = _mm256_adds_epi16(_mm256_packs_epi32(scale_round(acc[i + 1], vscale_lo, vmax),
                                                                    scale_round(acc[MR + i + 1], vscale_hi, vmax)),
                                                 vzero_point);
            const __m256i vout =
                _mm256_permutevar8x32_epi32(_mm256_max_epi8(_mm256_packs_epi16(v0, v1), vmin), vorder);
            if (n == NR) {
                _mm_storeu_si128((__m128i *)(void *)c[i], _mm256_castsi256_si128(vout));
                _mm_storeu_si128((__m128i *)(void *)c[i + 1], _mm256_extracti128_si256(vout, 1));
            } else {
                store_tail(c[i], _mm256_castsi256_si128(vout), n);
                store_tail(c[i + 1], _mm256_extracti128_si256(vout, 1), n);
            }
        }
    } else {
        for (size_t i = 0; i < MR; i += 4) {
            /* int16: rows i, i + 1 columns 0-3 | 4-7; bytes: rows i..i + 3 columns 0-3 | 4-7 (a last pair of
             * rows packed with itself). */
            const __m256i v01 = _mm256_adds_epi16(
                _mm256_packs_epi32(scale_round(acc[i], vscale_lo, vmax), scale_round(acc[i + 1], vscale_lo, vmax)),
                vzero_point);
            const __m256i v23 =
                i + 2 < MR ? _mm256_adds_epi16(_mm256_packs_epi32(scale_round(acc[i + 2], vscale_lo, vmax),
                                                                  scale_round(acc[i + 3], vscale_lo, vmax)),
                                               vzero_point)
                           : v01;
            const __m256i vout =
                _mm256_permutevar8x32_epi32(_mm256_max_epi8(_mm256_packs_epi16(v01, v23), vmin), vorder);
            const __m128i vout01 = _mm256_castsi256_si128(vout), vout23 = _mm256_extracti128_si256(vout, 1);
            store_tail(c[i], vout01, n);
            store_tail(c[i + 1], _mm_unpackhi_epi64(vout01, vout01), n);
            if (i + 2 < MR) {
                store_tail(c[i + 2], vout23, n);
                store_tail(c[i + 3], _mm_unpackhi_epi64(vout23, vout23), n);
            }
        }
    }
}

#endif
