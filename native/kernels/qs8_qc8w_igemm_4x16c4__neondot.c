/* qs8_qc8w_igemm_4x16c4__neondot.c — int8 IGEMM (rows through an indirection buffer), per-channel int8 weights,
 * 4 rows x 16 columns, kr 4, aarch64 with the dot-product instructions.
 *
 * As qs8_qc8w_gemm_4x16c4__neondot, with the k loop walking the ks taps' rows in turn (tap p's rows are
 * indirection[p * MR + i]); each tap's depth is packed rounded up to 4, and a tap whose kc is not a multiple
 * of 4 ends in a partial block read without passing kc (the driver pads such inputs, which the kernel does
 * not rely on). Only the first mr pointers of each tap are read: rows past mr alias the last real one. */
#include "qs8_qc8w_4x16c4__neondot.h"

/* One panel of n (<= NR) columns at `panel` into columns n0.. of the rows' outputs; returns the next panel. */
static inline __attribute__((always_inline)) const unsigned char *
igemm_panel(size_t mr, size_t n, size_t n0, size_t kc, size_t ks, const int8_t *const *indirection,
            const unsigned char *panel, int8_t *const *out, const rl_neon_requantization *rq) {
    const size_t width = n > NARROW_NR ? NR : NARROW_NR;
    int32x4_t acc[4 * MR];
    load_biases(panel, width == NR, acc);
    const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
    for (size_t p = 0; p < ks; ++p) {
        const int8_t *const *tap = indirection + p * MR;
        const int8_t *rows[MR];
        for (size_t i = 0; i < MR; ++i) rows[i] = tap[i < mr ? i : mr - 1];
        /* Two call sites, so each inlines with its width a constant. */
        wk = width == NR ? accumulate_4x16c4(rows, kc, wk, acc, 1, MR) : accumulate_4x16c4(rows, kc, wk, acc, 0, MR);
    }
    int8_t *c_at[MR] = {out[0] + n0, out[1] + n0, out[2] + n0, out[3] + n0};
    requantize_store_4x16(c_at, n, acc, wk, rq, MR);
    return (const unsigned char *)wk + width * sizeof(float);
}

/* A last panel of 1-7 or 9-15 columns (n of them, from column n0), out of line and from the call's own
 * arguments: inlined beside the full panels, its partial stores' row addresses were hoisted by gcc into stack
 * slots that every call filled, and handing it the outputs' array put it and the requantization in memory. */
static __attribute__((noinline)) void igemm_last_panel(size_t mr, size_t n, size_t n0, size_t kc, size_t ks,
                                                       const int8_t *const *indirection, const unsigned char *panel,
                                                       int8_t *c, size_t c_stride,
                                                       const rl_qs8_requantization_params *params) {
    int8_t *out[MR];
    for (size_t i = 0; i < MR; ++i) out[i] = c + (i < mr ? i : mr - 1) * c_stride;
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    igemm_panel(mr, n, n0, kc, ks, indirection, panel, out, &rq);
}

/* m rows, any number (the config's any_m): blocks of MR, block b's taps at indirection + b * ks * MR, in one call
 * (the entry, the requantization's set-up and the exit once per call, not once per 4 rows). */
void qs8_qc8w_igemm_4x16c4__neondot(size_t m, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                    const void *w, int8_t *c, size_t c_stride,
                                    const rl_qs8_requantization_params *params) {
    const rl_neon_requantization rq = rl_neon_requantization_of(params);
    for (;;) {
        const size_t mr = m < MR ? m : MR;
        const unsigned char *panel = w;
        size_t n0 = 0;
        int last_narrow = 0;
        {
            int8_t *out[MR];
            /* each output row a stride past the one before, or the same past mr: selects, not branches on mr */
            out[0] = c;
            for (size_t i = 1; i < MR; ++i) out[i] = out[i - 1] + (i < mr ? c_stride : 0);
            for (; n0 + NR <= nc; n0 += NR) panel = igemm_panel(mr, NR, n0, kc, ks, indirection, panel, out, &rq);
            if (nc - n0 == NARROW_NR) { /* a narrow panel's whole 8 columns: full stores, inline */
                igemm_panel(mr, NARROW_NR, n0, kc, ks, indirection, panel, out, &rq);
                last_narrow = 1;
            }
        }
        if (!last_narrow && n0 < nc) igemm_last_panel(mr, nc - n0, n0, kc, ks, indirection, panel, c, c_stride, params);
        if (m <= MR) return;
        m -= MR, indirection += ks * MR, c += MR * c_stride;
    }
}
