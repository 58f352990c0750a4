/* qs8_qc8w_igemm_6x16c2__avx2.c — int8 IGEMM (rows through an indirection buffer), per-channel int8 weights,
 * 6 rows x 16 columns, kr 2, AVX2.
 *
 * A packed block of kr = 2 holds, for each column, the weights of k and k + 1: sign-extended to int16, 16
 * bytes of it are 8 columns x 2 k. Broadcasting a row's inputs k, k + 1 (as int16, one 32-bit pair) into all
 * 8 dwords and multiplying with vpmaddwd gives those 8 columns' partial sums directly, in column order: no
 * horizontal adds, which for the small depths of a MobileNet (K 8 or 16) cost as much as the products. Every
 * product of two int8 fits int16 and each pair sum fits int32, so vpmaddwd is exact, and the int32 adds wrap
 * like the specification's (vpmaddubsw would saturate).
 *
 * The rows of all taps are first sign-extended to int16, back to back, into a stack buffer, once per call for
 * all panels (tap by tap, in chunks of KBLOCK, per panel when ks * kc is larger), so each pair is one
 * vpbroadcastd from memory and the taps run as one long row: holding the extended rows in registers instead
 * left gcc too few registers for the 12 accumulators (it spilled). An odd kc's last pair of each tap is padded
 * with a zero; its weight is zero too. Only the kc bytes of each of the mr rows a tap points at are read.
 *
 * The requantization is XNNPACK's fp32 one, bit-exact to rl_requantize_fp32: the accumulators start at the
 * bias; the float product is clamped above in float (so no value reaches the range where vcvtps2dq returns
 * INT32_MIN); vcvtps2dq rounds to nearest even; the saturating packs, with the zero point added in int16,
 * only saturate values below -128, which the lower clamp, done last on bytes, replaces (the bounds are
 * integers, so clamping before or after rounding gives the same value).
 *
 * A last panel of at most 8 columns runs on the first 8 columns only (N = 8, 24 and 56 are common).
 */
#include <immintrin.h>
#include <string.h>

#include "qs8_configs.h"

/* KBLOCK: the int16 inputs a row's buffer holds (plus 2 for extend_row's writes past len); 336 is
 * mobilenet_v2's deepest 1x1 convolution, and the 6 rows' buffer stays under 4 KiB of stack. */
enum { MR = 6, NR = 16, KBLOCK = 336 };

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
static __m256i broadcast_pair(const int16_t *x) {
    int32_t pair;
    memcpy(&pair, x, sizeof pair);
    return _mm256_set1_epi32(pair);
}

/* 8 columns x 2 k of weights, sign-extended to int16 (vpmovsxbw: on Zen 3 it measured faster than unpacking
 * each byte with itself and shifting). */
static __m256i load_weights(const int8_t *w) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
}

/* Adds `pairs` pairs of the MR extended rows x times the weights at w (NR columns a pair) into the MR rows'
 * accumulators of columns 0-7 (acc[0..MR)) and, when wide, 8-15 (acc[MR..2 MR)). Returns the weights past
 * them. */
static const int8_t *accumulate(int16_t (*x)[KBLOCK + 2], size_t pairs, const int8_t *w, __m256i *acc,
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
            w += 2 * NR;
            for (size_t i = 0; i < MR; ++i) {
                acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(broadcast_pair(x[i] + k), vw_lo));
            }
        }
    }
    return w;
}

/* A row's inputs k, k + 1 as an int16 pair in all 8 dwords, straight from the row: vpbroadcastw of the two
 * bytes, then vpmovsxbw. */
static __m256i broadcast_pair_direct(const int8_t *a) {
    int16_t pair;
    memcpy(&pair, a, sizeof pair);
    return _mm256_cvtepi8_epi16(_mm_set1_epi16(pair));
}

/* An odd kc's last input twice (k = kc is past the row; its weight is zero, so the copy does not count). */
static __m256i broadcast_last_direct(const int8_t *a) { return _mm256_cvtepi8_epi16(_mm_set1_epi8(*a)); }

/* One pair, k and k + 1 (only k when last: kc is odd), of the rows a[0..MR) times the weights at w, into the
 * accumulators as accumulate's. */
static inline void multiply_pair_direct(const int8_t *const *a, size_t k, int last, const int8_t *w, __m256i *acc,
                                        int wide) {
    const __m256i vw_lo = load_weights(w);
    if (wide) {
        const __m256i vw_hi = load_weights(w + 16);
        for (size_t i = 0; i < MR; ++i) {
            const __m256i vb = last ? broadcast_last_direct(a[i] + k) : broadcast_pair_direct(a[i] + k);
            acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(vb, vw_lo));
            acc[MR + i] = _mm256_add_epi32(acc[MR + i], _mm256_madd_epi16(vb, vw_hi));
        }
    } else {
        for (size_t i = 0; i < MR; ++i) {
            const __m256i vb = last ? broadcast_last_direct(a[i] + k) : broadcast_pair_direct(a[i] + k);
            acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(vb, vw_lo));
        }
    }
}

/* One row's 8 int32 sums, scaled, clamped above, rounded to nearest even (still without the zero point). */
static __m256i scale_round(__m256i vacc, __m256 vscale, __m256 vmax) {
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(vacc), vscale), vmax));
}

/* Writes the n (< 16) low bytes of v at c. */
static void store_tail(int8_t *c, __m128i v, size_t n) {
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
static requantization requantization_of(const rl_qs8_requantization_params *params) {
    const requantization rq = {
        .vmax = _mm256_set1_ps(params->max_less_zero_point),
        .vzero_point = _mm256_set1_epi16((int16_t)params->output_zero_point),
        .vmin = _mm256_set1_epi8((int8_t)((int32_t)params->min_less_zero_point + params->output_zero_point))};
    return rq;
}

static void requantize_store(const __m256i *acc, const float *scales, size_t n, int8_t *const *c,
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

void qs8_qc8w_igemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                 const void *w, int8_t *c, size_t c_stride,
                                 const rl_qs8_requantization_params *params) {
    /* Rows past mr alias the last real one: computed twice, stored twice with the same bytes, never read past. */
    int8_t *out[MR];
    const int8_t *const *rows[MR]; /* rows[i][p * MR] is row i of tap p */
    for (size_t i = 0; i < MR; ++i) {
        out[i] = i < mr ? c + i * c_stride : out[i - 1];
        rows[i] = i < mr ? indirection + i : rows[i - 1];
    }
    const size_t kc_rounded = (kc + 1) & ~(size_t)1;
    int16_t x[MR][KBLOCK + 2];
    /* Extending costs a few cycles per row and tap whatever kc: for a few short taps (an RGB first layer,
     * kc 3) and few panels, the pairs are broadcast straight from the rows instead, which costs one more
     * operation per pair and row in every panel. */
    const int direct = kc * ((nc + NR - 1) / NR) <= 12;
    /* Up to KBLOCK, all taps are extended once, one after the other, and every panel runs them as one row;
     * beyond, each panel extends each tap's chunks in turn. */
    const int once = ks * kc_rounded <= KBLOCK;
    if (once && !direct) {
        for (size_t p = 0; p < ks; ++p) {
            for (size_t i = 0; i < MR; ++i) extend_row(rows[i][p * MR], kc, x[i] + p * kc_rounded);
        }
    }
    const size_t steps = once ? 1 : ks * ((kc + KBLOCK - 1) / KBLOCK);
    const requantization rq = requantization_of(params);
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        const int wide = n > 8;
        const __m256i vbias_lo = _mm256_loadu_si256((const __m256i *)(const void *)panel);
        const __m256i vbias_hi = _mm256_loadu_si256((const __m256i *)(const void *)(panel + 32));
        __m256i acc[2 * MR];
        for (size_t i = 0; i < MR; ++i) acc[i] = vbias_lo, acc[MR + i] = vbias_hi;
        const int8_t *wk = (const int8_t *)(panel + NR * sizeof(int32_t));
        if (direct) {
            for (size_t p = 0; p < ks; ++p) {
                const int8_t *a[MR];
                for (size_t i = 0; i < MR; ++i) a[i] = rows[i][p * MR];
                size_t k = 0;
                for (; k + 2 <= kc; k += 2, wk += 2 * NR) multiply_pair_direct(a, k, 0, wk, acc, wide);
                if (k < kc) {
                    multiply_pair_direct(a, k, 1, wk, acc, wide);
                    wk += 2 * NR;
                }
            }
        } else {
            /* One call site of accumulate keeps it inlined; a step is tap p's chunk from k0 on. */
            size_t p = 0, k0 = 0;
            for (size_t step = 0; step < steps; ++step) {
                size_t pairs = ks * kc_rounded / 2;
                if (!once) {
                    const size_t len = kc - k0 < KBLOCK ? kc - k0 : KBLOCK;
                    for (size_t i = 0; i < MR; ++i) extend_row(rows[i][p * MR] + k0, len, x[i]);
                    pairs = (len + 1) / 2;
                    k0 += KBLOCK;
                    if (k0 >= kc) k0 = 0, ++p;
                }
                wk = accumulate(x, pairs, wk, acc, wide);
            }
        }
        int8_t *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        requantize_store(acc, (const float *)(const void *)wk, n, c_at, &rq);
        panel += NR * (sizeof(int32_t) + ks * kc_rounded + sizeof(float));
    }
}
