/* qs8_qc8w_gemm_4x16c4__neondot.c — int8 GEMM, per-channel int8 weights, 4 rows x 16 columns, kr 4, aarch64
 * with the dot-product instructions (Cortex-A76 / Pi 5 and later): sdot by lane (qs8_qc8w_4x16c4__neondot.h),
 * then the fp32 requantization of qs8_requantize__neon.h, bit for bit with the scalar kernel. Rows past mr
 * alias the last real one: computed twice, stored twice with the same bytes, never read past. One row (a
 * batch-1 FULLY_CONNECTED-like 1x1 convolution: a squeeze-and-excite block's, a classifier's) runs the same loop
 * on one row's accumulators instead: four rows' sdots for one would cost it 3-4x the instructions. */
#include "qs8_qc8w_4x16c4__neondot.h"

/* One panel of n (<= NR) columns at `panel` into columns n0.. of the rows' outputs; returns the next panel. */
static inline __attribute__((always_inline)) const unsigned char *
gemm_panel(size_t rows, size_t n, size_t n0, size_t kc, const int8_t *const *a, const unsigned char *panel,
           int8_t *const *out, const rl_neon_requantization *rq) {
    const size_t width = n > NARROW_NR ? NR : NARROW_NR;
    int32x4_t acc[4 * MR];
    load_biases(panel, width == NR, acc);
    const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
    /* Two call sites, so each inlines with its width a constant. */
    const int8_t *scales = width == NR ? accumulate_4x16c4(a, kc, wk, acc, 1, rows)
                                       : accumulate_4x16c4(a, kc, wk, acc, 0, rows);
    int8_t *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
    requantize_store_4x16(c_at, n, acc, scales, rq, rows);
    return (const unsigned char *)scales + width * sizeof(float);
}

/* The rows' (mr of them, then the last repeated) and their outputs' addresses. */
static inline __attribute__((always_inline)) void row_addresses(size_t mr, const int8_t *a, size_t a_stride,
                                                                int8_t *c, size_t c_stride, const int8_t **rows,
                                                                int8_t **out) {
    /* Each row a stride past the one before, or the same row past mr: conditional selects, where indexing by
     * min(i, mr - 1) compiled to a chain of branches on mr. */
    rows[0] = a, out[0] = c;
    for (size_t i = 1; i < MR; ++i) {
        rows[i] = rows[i - 1] + (i < mr ? a_stride : 0);
        out[i] = out[i - 1] + (i < mr ? c_stride : 0);
    }
}

/* A last panel of 1-7 or 9-15 columns (n of them, from column n0), out of line and from the call's own
 * arguments: inlined beside the full panels, its partial stores' row addresses were hoisted by gcc into stack
 * slots that every call filled, and handing it the rows' arrays put them and the requantization in memory. */
static __attribute__((noinline)) void gemm_last_panel(size_t mr, size_t n, size_t n0, size_t kc, const int8_t *a,
                                                      size_t a_stride, const unsigned char *panel, int8_t *c,
                                                      size_t c_stride, const rl_qs8_requantization_params *params) {
    const int8_t *rows[MR];
    int8_t *out[MR];
    row_addresses(mr, a, a_stride, c, c_stride, rows, out);
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    if (mr == 1)
        gemm_panel(1, n, n0, kc, rows, panel, out, &rq);
    else
        gemm_panel(MR, n, n0, kc, rows, panel, out, &rq);
}

/* The full panels and a whole narrow one; returns where the columns stopped (nc, or a partial panel's start). */
static inline __attribute__((always_inline)) size_t gemm_rows(size_t rows, size_t nc, size_t kc,
                                                              const int8_t *const *a, const unsigned char **panel,
                                                              int8_t *const *out, const rl_neon_requantization *rq) {
    size_t n0 = 0;
    for (; n0 + NR <= nc; n0 += NR) *panel = gemm_panel(rows, NR, n0, kc, a, *panel, out, rq);
    if (nc - n0 == NARROW_NR) { /* a narrow panel's whole 8 columns: full stores, inline */
        gemm_panel(rows, NARROW_NR, n0, kc, a, *panel, out, rq);
        return nc;
    }
    return n0;
}

/* m rows, any number (the config's any_m): blocks of MR, the last of 1-4, in one call, so that the entry, the
 * requantization's set-up and the exit are paid once per call rather than once per 4 rows (a 112x112 layer of
 * 16 columns made 3136 calls of about 70 instructions each beside its 16-column tiles). */
void qs8_qc8w_gemm_4x16c4__neondot(size_t m, size_t nc, size_t kc, const int8_t *a, size_t a_stride, const void *w,
                                   int8_t *c, size_t c_stride, const rl_qs8_requantization_params *params) {
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    for (;;) {
        const size_t mr = m < MR ? m : MR;
        const unsigned char *panel = w;
        size_t n0;
        {
            const int8_t *rows[MR];
            int8_t *out[MR];
            row_addresses(mr, a, a_stride, c, c_stride, rows, out);
            n0 = mr == 1 ? gemm_rows(1, nc, kc, rows, &panel, out, &rq) : gemm_rows(MR, nc, kc, rows, &panel, out, &rq);
        }
        if (n0 < nc) gemm_last_panel(mr, nc - n0, n0, kc, a, a_stride, panel, c, c_stride, params);
        if (m <= MR) return;
        m -= MR, a += MR * a_stride, c += MR * c_stride;
    }
}
