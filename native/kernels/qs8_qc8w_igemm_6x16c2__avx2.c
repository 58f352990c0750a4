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
 * A last panel of at most 8 columns is packed 8 wide (gemm.h) and runs on those 8 columns only (N = 8, 24 and
 * 56 are common).
 */
#include "qs8_qc8w_6x16c2__avx2.h"

/* A row's inputs k, k + 1 as an int16 pair in all 8 dwords, straight from the row: vpbroadcastw of the two
 * bytes, then vpmovsxbw. */
static __m256i broadcast_pair_direct(const int8_t *a) {
    int16_t pair;
    memcpy(&pair, a, sizeof pair);
    return _mm256_cvtepi8_epi16(_mm_set1_epi16(pair));
}

/* An odd kc's last input twice (k = kc is past the row; its weight is zero, so the copy does not count). */
static __m256i broadcast_last_direct(const int8_t *a) { return _mm256_cvtepi8_epi16(_mm_set1_epi8(*a)); }

/* One pair, k and k + 1 (only k when last: kc is odd), of the rows a[first..first + HALF) times the weights at
 * w, into the accumulators as accumulate's. Half the rows at a time: all six with both column halves' weights,
 * broadcasts and products are more than AVX2's 16 registers hold besides the 12 accumulators (gcc spilled
 * them); the weights are loaded once per half instead. */
enum { HALF = MR / 2 };
static inline void multiply_pair_direct(const int8_t *const *a, size_t k, int last, const int8_t *w, __m256i *acc,
                                        int wide, size_t first) {
    const __m256i vw_lo = load_weights(w);
    if (wide) {
        const __m256i vw_hi = load_weights(w + 16);
        for (size_t i = first; i < first + HALF; ++i) {
            const __m256i vb = last ? broadcast_last_direct(a[i] + k) : broadcast_pair_direct(a[i] + k);
            acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(vb, vw_lo));
            acc[MR + i] = _mm256_add_epi32(acc[MR + i], _mm256_madd_epi16(vb, vw_hi));
        }
    } else {
        for (size_t i = first; i < first + HALF; ++i) {
            const __m256i vb = last ? broadcast_last_direct(a[i] + k) : broadcast_pair_direct(a[i] + k);
            acc[i] = _mm256_add_epi32(acc[i], _mm256_madd_epi16(vb, vw_lo));
        }
    }
}

/* Every tap's pairs of rows first..first + HALF (a constant once inlined, so the accumulators stay in
 * registers). Returns the weights past the panel's. */
static inline __attribute__((always_inline)) const int8_t *multiply_taps_direct(const int8_t *const *const *rows,
                                                                                 size_t ks, size_t kc, const int8_t *wk,
                                                                                 __m256i *acc, int wide, size_t first) {
    for (size_t p = 0; p < ks; ++p) {
        const int8_t *a[MR];
        for (size_t i = 0; i < MR; ++i) a[i] = rows[i][p * MR];
        size_t k = 0;
        const size_t step = wide ? 2 * NR : 2 * NARROW_NR;
        for (; k + 2 <= kc; k += 2, wk += step) multiply_pair_direct(a, k, 0, wk, acc, wide, first);
        if (k < kc) {
            multiply_pair_direct(a, k, 1, wk, acc, wide, first);
            wk += step;
        }
    }
    return wk;
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
        const int wide = n > NARROW_NR;
        const size_t width = wide ? NR : NARROW_NR;
        __m256i vbias_lo, vbias_hi;
        load_biases(panel, &vbias_lo, &vbias_hi);
        __m256i acc[2 * MR];
        for (size_t i = 0; i < MR; ++i) acc[i] = vbias_lo, acc[MR + i] = vbias_hi;
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        if (direct && wide) {
            multiply_taps_direct(rows, ks, kc, wk, acc, 1, 0);
            wk = multiply_taps_direct(rows, ks, kc, wk, acc, 1, HALF);
        } else if (direct) { /* its own copy with the narrow panel's step a constant: 5-8% faster on it */
            multiply_taps_direct(rows, ks, kc, wk, acc, 0, 0);
            wk = multiply_taps_direct(rows, ks, kc, wk, acc, 0, HALF);
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
        panel = (const unsigned char *)(wk + width * sizeof(float)); /* past the scales, as the GEMM's */
    }
}
