/* qs8_qc8w_igemm_4x8c8__avx2.c — int8 IGEMM (rows through an indirection buffer), per-channel int8
 * weights, 4 rows x 8 columns, kr 8, AVX2.
 *
 * Each step sign-extends 8 input bytes to int16 (twice, one copy per 128-bit lane) and 16 weight bytes (8 of
 * column j, 8 of column j + 1) and multiplies them with vpmaddwd: every product of two int8 fits int16 and
 * the pair sums fit int32, so it is exact, and the int32 adds wrap like the specification's (vpmaddubsw
 * would saturate). Each accumulator holds 4 partial sums of 2 columns; three horizontal adds and a
 * permute at the end give one vector of the 8 columns. The requantization is rl_requantize_fp32's, vectorised:
 * vcvtps2dq rounds to nearest even in the default rounding mode. A row's last partial block of 8 is loaded
 * without reading past kc (its weights are zero past kc, so whatever bytes fill the rest do not count).
 */
#include <immintrin.h>
#include <string.h>

#include "qs8_configs.h"

/* The last kc % 8 (= rem, 1..7) bytes of a kc-byte row, in the low bytes of a vector, reading only the row. */
static __m128i load_tail(const int8_t *row, size_t kc, size_t rem) {
    if (kc >= 8) {
        const __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)(row + kc - 8));
        return _mm_srl_epi64(v, _mm_cvtsi32_si128((int)(8 * (8 - rem))));
    }
    uint64_t bits = 0;
    size_t at = 0;
    if (rem & 4) {
        uint32_t part;
        memcpy(&part, row, sizeof part);
        bits = part, at = 4;
    }
    if (rem & 2) {
        uint16_t part;
        memcpy(&part, row + at, sizeof part);
        bits |= (uint64_t)part << (8 * at), at += 2;
    }
    if (rem & 1) bits |= (uint64_t)(uint8_t)row[at] << (8 * at);
    return _mm_cvtsi64_si128((long long)bits);
}

static __m128i load8(const int8_t *p) { return _mm_loadl_epi64((const __m128i *)(const void *)p); }

/* 8 input bytes sign-extended to int16, in both 128-bit lanes. */
static __m256i extend_inputs(__m128i v) { return _mm256_cvtepi8_epi16(_mm_broadcastq_epi64(v)); }

/* 8 weights of column j and 8 of column j + 1, sign-extended to int16. */
static __m256i load_weights(const int8_t *w) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
}

/* The 8 columns' sums (partial sums of columns 0|1, 2|3, 4|5, 6|7) plus bias, requantized, plus zero point. */
static __m256i requantize(__m256i vacc01, __m256i vacc23, __m256i vacc45, __m256i vacc67, __m256i vbias,
                          __m256 vscale, const rl_qs8_requantization_params *params) {
    /* hadd leaves columns in the order 0 2 4 6 | 1 3 5 7. */
    const __m256i vsum = _mm256_hadd_epi32(_mm256_hadd_epi32(vacc01, vacc23), _mm256_hadd_epi32(vacc45, vacc67));
    const __m256i vorder = _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0);
    const __m256i vacc = _mm256_add_epi32(_mm256_permutevar8x32_epi32(vsum, vorder), vbias);
    __m256 vf = _mm256_mul_ps(_mm256_cvtepi32_ps(vacc), vscale);
    vf = _mm256_min_ps(_mm256_max_ps(vf, _mm256_set1_ps(params->min_less_zero_point)),
                       _mm256_set1_ps(params->max_less_zero_point));
    return _mm256_add_epi32(_mm256_cvtps_epi32(vf), _mm256_set1_epi32(params->output_zero_point));
}

/* Writes the n (< 8) low bytes of v at c. */
static void store_tail(int8_t *c, __m128i v, size_t n) {
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

void qs8_qc8w_igemm_4x8c8__avx2(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                const void *w, int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    enum { MR = 4, NR = 8 };
    /* Rows past mr alias the last real one: computed twice, stored twice with the same bytes, never read past. */
    int8_t *c0 = c;
    int8_t *c1 = c0 + c_stride;
    if (mr <= 1) {
        c1 = c0;
    }
    int8_t *c2 = c1 + c_stride;
    if (mr <= 2) {
        c2 = c1;
    }
    int8_t *c3 = c2 + c_stride;
    if (mr <= 3) {
        c3 = c2;
    }
    const size_t kfull = kc & ~(size_t)7, rem = kc & 7, kc_rounded = (kc + 7) & ~(size_t)7;
    /* Packing rows leaves them interleaved in 4-byte groups: r0 r1 r2 r3 (columns 0-3) | the same for 4-7. */
    const __m256i vorder = _mm256_set_epi32(7, 3, 6, 2, 5, 1, 4, 0);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        __m256i vacc0x01 = _mm256_setzero_si256(), vacc0x23 = _mm256_setzero_si256();
        __m256i vacc0x45 = _mm256_setzero_si256(), vacc0x67 = _mm256_setzero_si256();
        __m256i vacc1x01 = _mm256_setzero_si256(), vacc1x23 = _mm256_setzero_si256();
        __m256i vacc1x45 = _mm256_setzero_si256(), vacc1x67 = _mm256_setzero_si256();
        __m256i vacc2x01 = _mm256_setzero_si256(), vacc2x23 = _mm256_setzero_si256();
        __m256i vacc2x45 = _mm256_setzero_si256(), vacc2x67 = _mm256_setzero_si256();
        __m256i vacc3x01 = _mm256_setzero_si256(), vacc3x23 = _mm256_setzero_si256();
        __m256i vacc3x45 = _mm256_setzero_si256(), vacc3x67 = _mm256_setzero_si256();
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *a0 = indirection[p * MR];
            const int8_t *a1 = mr > 1 ? indirection[p * MR + 1] : a0;
            const int8_t *a2 = mr > 2 ? indirection[p * MR + 2] : a1;
            const int8_t *a3 = mr > 3 ? indirection[p * MR + 3] : a2;
            for (size_t k = 0; k < kfull; k += 8) {
                const __m256i va0 = extend_inputs(load8(a0 + k));
                const __m256i va1 = extend_inputs(load8(a1 + k));
                const __m256i va2 = extend_inputs(load8(a2 + k));
                const __m256i va3 = extend_inputs(load8(a3 + k));
                const __m256i vw01 = load_weights(wk + 0);
                vacc0x01 = _mm256_add_epi32(vacc0x01, _mm256_madd_epi16(va0, vw01));
                vacc1x01 = _mm256_add_epi32(vacc1x01, _mm256_madd_epi16(va1, vw01));
                vacc2x01 = _mm256_add_epi32(vacc2x01, _mm256_madd_epi16(va2, vw01));
                vacc3x01 = _mm256_add_epi32(vacc3x01, _mm256_madd_epi16(va3, vw01));
                const __m256i vw23 = load_weights(wk + 16);
                vacc0x23 = _mm256_add_epi32(vacc0x23, _mm256_madd_epi16(va0, vw23));
                vacc1x23 = _mm256_add_epi32(vacc1x23, _mm256_madd_epi16(va1, vw23));
                vacc2x23 = _mm256_add_epi32(vacc2x23, _mm256_madd_epi16(va2, vw23));
                vacc3x23 = _mm256_add_epi32(vacc3x23, _mm256_madd_epi16(va3, vw23));
                const __m256i vw45 = load_weights(wk + 32);
                vacc0x45 = _mm256_add_epi32(vacc0x45, _mm256_madd_epi16(va0, vw45));
                vacc1x45 = _mm256_add_epi32(vacc1x45, _mm256_madd_epi16(va1, vw45));
                vacc2x45 = _mm256_add_epi32(vacc2x45, _mm256_madd_epi16(va2, vw45));
                vacc3x45 = _mm256_add_epi32(vacc3x45, _mm256_madd_epi16(va3, vw45));
                const __m256i vw67 = load_weights(wk + 48);
                vacc0x67 = _mm256_add_epi32(vacc0x67, _mm256_madd_epi16(va0, vw67));
                vacc1x67 = _mm256_add_epi32(vacc1x67, _mm256_madd_epi16(va1, vw67));
                vacc2x67 = _mm256_add_epi32(vacc2x67, _mm256_madd_epi16(va2, vw67));
                vacc3x67 = _mm256_add_epi32(vacc3x67, _mm256_madd_epi16(va3, vw67));
                wk += 64;
            }
            if (rem != 0) {
                const __m256i va0 = extend_inputs(load_tail(a0, kc, rem));
                const __m256i va1 = extend_inputs(load_tail(a1, kc, rem));
                const __m256i va2 = extend_inputs(load_tail(a2, kc, rem));
                const __m256i va3 = extend_inputs(load_tail(a3, kc, rem));
                const __m256i vw01 = load_weights(wk + 0);
                vacc0x01 = _mm256_add_epi32(vacc0x01, _mm256_madd_epi16(va0, vw01));
                vacc1x01 = _mm256_add_epi32(vacc1x01, _mm256_madd_epi16(va1, vw01));
                vacc2x01 = _mm256_add_epi32(vacc2x01, _mm256_madd_epi16(va2, vw01));
                vacc3x01 = _mm256_add_epi32(vacc3x01, _mm256_madd_epi16(va3, vw01));
                const __m256i vw23 = load_weights(wk + 16);
                vacc0x23 = _mm256_add_epi32(vacc0x23, _mm256_madd_epi16(va0, vw23));
                vacc1x23 = _mm256_add_epi32(vacc1x23, _mm256_madd_epi16(va1, vw23));
                vacc2x23 = _mm256_add_epi32(vacc2x23, _mm256_madd_epi16(va2, vw23));
                vacc3x23 = _mm256_add_epi32(vacc3x23, _mm256_madd_epi16(va3, vw23));
                const __m256i vw45 = load_weights(wk + 32);
                vacc0x45 = _mm256_add_epi32(vacc0x45, _mm256_madd_epi16(va0, vw45));
                vacc1x45 = _mm256_add_epi32(vacc1x45, _mm256_madd_epi16(va1, vw45));
                vacc2x45 = _mm256_add_epi32(vacc2x45, _mm256_madd_epi16(va2, vw45));
                vacc3x45 = _mm256_add_epi32(vacc3x45, _mm256_madd_epi16(va3, vw45));
                const __m256i vw67 = load_weights(wk + 48);
                vacc0x67 = _mm256_add_epi32(vacc0x67, _mm256_madd_epi16(va0, vw67));
                vacc1x67 = _mm256_add_epi32(vacc1x67, _mm256_madd_epi16(va1, vw67));
                vacc2x67 = _mm256_add_epi32(vacc2x67, _mm256_madd_epi16(va2, vw67));
                vacc3x67 = _mm256_add_epi32(vacc3x67, _mm256_madd_epi16(va3, vw67));
                wk += 64;
            }
        }
        const __m256i vbias = _mm256_loadu_si256((const __m256i *)(const void *)panel);
        const __m256 vscale = _mm256_loadu_ps((const float *)(const void *)wk);
        const __m256i vq0 = requantize(vacc0x01, vacc0x23, vacc0x45, vacc0x67, vbias, vscale, params);
        const __m256i vq1 = requantize(vacc1x01, vacc1x23, vacc1x45, vacc1x67, vbias, vscale, params);
        const __m256i vq2 = requantize(vacc2x01, vacc2x23, vacc2x45, vacc2x67, vbias, vscale, params);
        const __m256i vq3 = requantize(vacc3x01, vacc3x23, vacc3x45, vacc3x67, vbias, vscale, params);
        /* Values already lie in [-128, 127]: the saturating packs are exact. */
        const __m256i v01 = _mm256_packs_epi32(vq0, vq1);
        const __m256i v23 = _mm256_packs_epi32(vq2, vq3);
        const __m256i vout = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(v01, v23), vorder);
        const __m128i vout01 = _mm256_castsi256_si128(vout);
        const __m128i vout23 = _mm256_extracti128_si256(vout, 1);
        if (nc - n0 >= NR) {
            _mm_storel_epi64((__m128i *)(void *)(c0 + n0), vout01);
            _mm_storel_epi64((__m128i *)(void *)(c1 + n0), _mm_unpackhi_epi64(vout01, vout01));
            _mm_storel_epi64((__m128i *)(void *)(c2 + n0), vout23);
            _mm_storel_epi64((__m128i *)(void *)(c3 + n0), _mm_unpackhi_epi64(vout23, vout23));
        } else {
            store_tail(c0 + n0, vout01, nc - n0);
            store_tail(c1 + n0, _mm_unpackhi_epi64(vout01, vout01), nc - n0);
            store_tail(c2 + n0, vout23, nc - n0);
            store_tail(c3 + n0, _mm_unpackhi_epi64(vout23, vout23), nc - n0);
        }
        panel += NR * (sizeof(int32_t) + ks * kc_rounded + sizeof(float));
    }
}
