/* qs8_qc8w_gemm_6x16c2__avx2.c — int8 GEMM, per-channel int8 weights, 6 rows x 16 columns, kr 2, AVX2.
 *
 * A packed block of kr = 2 holds, for each column, the weights of k and k + 1: sign-extended to int16, 16
 * bytes of it are 8 columns x 2 k. Broadcasting a row's inputs k, k + 1 (as int16, one 32-bit pair) into all
 * 8 dwords and multiplying with vpmaddwd gives those 8 columns' partial sums directly, in column order: no
 * horizontal adds, which for the small depths of a MobileNet (K 8 or 16) cost as much as the products. Every
 * product of two int8 fits int16 and each pair sum fits int32, so vpmaddwd is exact, and the int32 adds wrap
 * like the specification's (vpmaddubsw would saturate).
 *
 * The rows are first sign-extended to int16 into a stack buffer, once per call for all panels (in chunks of
 * KBLOCK per panel when kc is larger), so each pair is one vpbroadcastd from memory: holding the extended
 * rows in registers instead left gcc too few registers for the 12 accumulators (it spilled). An odd kc's last
 * pair is padded with a zero; its weight is zero too. Only the kc bytes of each row are read.
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

void qs8_qc8w_gemm_6x16c2__avx2(size_t mr, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                                int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    /* Rows past mr alias the last real one: computed twice, stored twice with the same bytes, never read past. */
    const int8_t *rows[MR];
    int8_t *out[MR];
    for (size_t i = 0; i < MR; ++i) {
        rows[i] = i < mr ? a + i * a_stride : rows[i - 1];
        out[i] = i < mr ? c + i * c_stride : out[i - 1];
    }
    int16_t x[MR][KBLOCK + 2];
    /* Up to KBLOCK, the rows are extended once, for the first panel, and kept for the others. */
    const int once = kc <= KBLOCK;
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
        for (size_t k0 = 0; k0 < kc; k0 += KBLOCK) {
            const size_t len = kc - k0 < KBLOCK ? kc - k0 : KBLOCK;
            if (!once || n0 == 0) {
                for (size_t i = 0; i < MR; ++i) extend_row(rows[i] + k0, len, x[i]);
            }
            wk = accumulate(x, (len + 1) / 2, wk, acc, wide);
        }
        int8_t *c_at[MR];
        for (size_t i = 0; i < MR; ++i) c_at[i] = out[i] + n0;
        /* The weights end where the scales begin, and the scales where the next panel does: pointers carried
         * on, not a product of the width per panel (with depths of 8 or 16, a panel is a few dozen cycles, and
         * multiplying there made such layers 2-3% slower). */
        requantize_store(acc, (const float *)(const void *)wk, n, c_at, &rq);
        panel = (const unsigned char *)(wk + width * sizeof(float));
    }
}
