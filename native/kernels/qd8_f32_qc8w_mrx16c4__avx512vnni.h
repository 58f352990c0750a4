/* qd8_f32_qc8w_mrx16c4__avx512vnni.h — the one template of the AVX-512 VNNI hybrid GEMM and IGEMM tiles: MR rows
 * (RL_QD8_VNNI_MR, 1 to 8, defined by the including file) by 16 columns, kr 4. The products of
 * qs8_qc8w_gemm_7x16c4__avx512vnni (vpdpbusd on the input bytes plus 128: 4-product sums exact in int32, adds
 * wrapping like the scalar kernel's; the saturating vpdpbusds is not used) on qd8_gemm.h's panels packed with kr 4,
 * between a start of -(zero_point + 128) * sum(w) per row (the +128 taken back with the zero point, so the sum is
 * sum((x - zero_point) * w) modulo 2^32, the scalar kernel's bits) and the float epilogue of
 * qd8_f32_qc8w_6x16c2__avx2.h in 16 lanes. The rows hold the signed bytes (flipped to unsigned here, a vpxord per
 * row and step) or, in the qdu8 kernels, the bytes plus 128 already (f32_qdu8_quantize__avx512), which vpdpbusd
 * multiplies as they are. A GEMM is the IGEMM of one tap over its own rows, so every tile has one k loop. A narrow
 * last panel (8 columns) loads under a mask of 8 lanes (fault-suppressing: nothing past the panel is read).
 * Included only by AVX-512 VNNI files. Every sum runs in the same order whatever MR, so a tile's size does not
 * change the bits. */
#ifndef RILLET_QD8_F32_QC8W_MRX16C4_AVX512VNNI_H
#define RILLET_QD8_F32_QC8W_MRX16C4_AVX512VNNI_H

#if !defined(RL_QD8_VNNI_MR) || RL_QD8_VNNI_MR < 1 || RL_QD8_VNNI_MR > 8
#error "define RL_QD8_VNNI_MR as 1 to 8 before including qd8_f32_qc8w_mrx16c4__avx512vnni.h"
#endif

#include <immintrin.h>
#include <string.h>

#include "qd8_gemm.h"

enum { MR = RL_QD8_VNNI_MR, NR = 16 };

/* Before each loop over the MR rows: unrolled whole, so each accumulator is a register. Left to its heuristics, gcc
 * 12 kept the k tail's loop (the byte gathering of block_bits) rolled, which put every accumulator in memory and
 * stored it at each step of the main loop too. */
#define EACH_ROW _Pragma("GCC unroll 8")

/* The 4 input bytes from k as they are stored: the rem (1..3) left when the row ends sooner, reading only the row
 * (their weights are zero past kc, so the bytes beside them add nothing). */
static inline uint32_t block_bits(const int8_t *row, size_t k, size_t kc) {
    uint32_t bits;
    if (k + 4 <= kc) {
        memcpy(&bits, row + k, sizeof bits);
    } else if (kc >= 4) {
        memcpy(&bits, row + kc - 4, sizeof bits);
        bits >>= 8 * (k + 4 - kc);
    } else {
        bits = 0;
        for (size_t i = 0; i < kc; ++i) bits |= (uint32_t)(uint8_t)row[i] << (8 * i);
    }
    return bits;
}

/* 4 input bytes from k, plus 128 each (signed rows: flipped here; u8 rows hold them so), broadcast. */
static inline __m512i broadcast_block(const int8_t *row, size_t k, size_t kc, int u8) {
    const uint32_t bits = block_bits(row, k, kc);
    return _mm512_set1_epi32((int)(u8 ? bits : bits ^ UINT32_C(0x80808080)));
}

/* The first 16 (lanes 0xFFFF), or 8 (0x00FF: a narrow panel), 4-byte values at p; the rest zero. */
static inline __m512i load_columns(const void *p, __mmask16 lanes) { return _mm512_maskz_loadu_epi32(lanes, p); }

/* acc += the 4 input bytes at row (+ 128 each: vsign, unless the u8 row holds them so) times the 16 columns' 4
 * weights. The bytes are broadcast from memory and flipped in the vector unit: flipped in a general register
 * first (what gcc makes of set1(bits ^ sign)), each needs a move from that register to the vector unit, and
 * those moves, not the products, bounded the loop. A u8 row needs no flip: its broadcast is a load alone, and
 * the step's vector work is the products only (XNNPACK's qdu8 kernels). */
static inline __m512i dot_block(__m512i vacc, const int8_t *row, __m512i vw, __m512i vsign, int u8) {
    int32_t bits;
    memcpy(&bits, row, sizeof bits);
    const __m512i va = _mm512_set1_epi32(bits);
    return _mm512_dpbusd_epi32(vacc, u8 ? va : _mm512_xor_si512(va, vsign), vw);
}

/* v, through an empty asm statement: gcc 12, seeing the sums converted to float after the loop, gave every
 * accumulator two register copies per step of the loop (14 moves beside 7 products with 7 rows; the qs8 7x16c4
 * kernels have them too); a value the conversion takes from here leaves the loop's registers alone. Nothing to
 * do on the emulated build (SIMDe's types, no such copies to avoid). */
static inline __m512i settled(__m512i v) {
#ifndef RL_EMULATED_AVX512
    __asm__("" : "+v"(v));
#endif
    return v;
}

/* -(zero_point + 128) * sum(w) per column, wrapping. */
static inline __m512i start_row(__m512i vksum, const rl_qd8_row_quantization *rq) {
    const uint32_t factor = UINT32_C(0) - ((uint32_t)rq->zero_point + UINT32_C(128));
    return _mm512_mullo_epi32(vksum, _mm512_set1_epi32((int)factor));
}

/* y = fmaf((float)acc * row scale, weight scale, bias), clamped: the scalar kernel's operations in its order,
 * so the same bits; the n columns vmask selects are stored. */
static inline void store_row(float *c, __mmask16 vmask, __m512i vacc, const rl_qd8_row_quantization *rq,
                             __m512 vscale, __m512 vbias, const rl_f32_minmax_params *params) {
    const __m512 scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(vacc), _mm512_set1_ps(rq->scale));
    const __m512 y = _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(scaled, vscale, vbias), _mm512_set1_ps(params->min)),
                                   _mm512_set1_ps(params->max));
    _mm512_mask_storeu_ps(c, vmask, y);
}

/* The IGEMM tile: tap p's row i at indirection[p * MR + i] (i < mr); rows past mr alias the last real one,
 * computed again and stored again with the same values. u8 (a constant in each caller) says whether the rows hold
 * the signed bytes or the bytes plus 128. The loops over the MR rows have constant bounds: gcc unrolls them and
 * keeps the accumulators in registers, as the hand-unrolled 8-row kernels did (the same instructions). */
static inline __attribute__((always_inline)) void igemm_mrx16c4(size_t mr, size_t nc, size_t kc, size_t ks,
                                                                const int8_t *const *indirection, const void *w,
                                                                float *c, size_t c_stride,
                                                                const rl_qd8_row_quantization *rows,
                                                                const rl_f32_minmax_params *params, int u8) {
    float *out[MR];
    const rl_qd8_row_quantization *rq[MR];
    EACH_ROW
    for (size_t i = 0; i < MR; ++i) {
        out[i] = i == 0 || i < mr ? c + i * c_stride : out[i - 1];
        rq[i] = i == 0 || i < mr ? rows + i : rq[i - 1];
    }
    const size_t kfull = kc & ~(size_t)3;
    const __m512i vsign = _mm512_set1_epi32((int)UINT32_C(0x80808080));
    const unsigned char *panel = w;
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t width = nc - n0 <= 8 ? 8 : NR;
        const __mmask16 lanes = (__mmask16)((UINT32_C(1) << width) - 1);
        const __m512i vksum = load_columns(panel, lanes);
        __m512i vacc[MR];
        EACH_ROW
        for (size_t i = 0; i < MR; ++i) vacc[i] = start_row(vksum, rq[i]);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *a[MR];
            EACH_ROW
            for (size_t i = 0; i < MR; ++i) a[i] = i == 0 || i < mr ? indirection[p * MR + i] : a[i - 1];
            size_t k = 0;
            for (; k < kfull; k += 4, wk += 4 * width) {
                const __m512i vw = load_columns(wk, lanes);
                EACH_ROW
                for (size_t i = 0; i < MR; ++i) vacc[i] = dot_block(vacc[i], a[i] + k, vw, vsign, u8);
            }
            if (k < kc) {
                const __m512i vw = load_columns(wk, lanes);
                EACH_ROW
                for (size_t i = 0; i < MR; ++i)
                    vacc[i] = _mm512_dpbusd_epi32(vacc[i], broadcast_block(a[i], k, kc, u8), vw);
                wk += 4 * width;
            }
        }
        EACH_ROW
        for (size_t i = 0; i < MR; ++i) vacc[i] = settled(vacc[i]);
        const float *tail = (const float *)(const void *)wk;
        const __m512 vscale = _mm512_castsi512_ps(load_columns(tail, lanes));
        const __m512 vbias = _mm512_castsi512_ps(load_columns(tail + width, lanes));
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        const __mmask16 vmask = (__mmask16)((UINT32_C(1) << n) - 1);
        EACH_ROW
        for (size_t i = 0; i < MR; ++i) store_row(out[i] + n0, vmask, vacc[i], rq[i], vscale, vbias, params);
        panel = (const unsigned char *)(tail + 2 * width); /* past the scales and biases */
    }
}

/* The GEMM tile: rows a_stride apart, one tap. */
static inline __attribute__((always_inline)) void gemm_mrx16c4(size_t mr, size_t nc, size_t kc, const int8_t *a,
                                                               size_t a_stride, const void *w, float *c,
                                                               size_t c_stride, const rl_qd8_row_quantization *rows,
                                                               const rl_f32_minmax_params *params, int u8) {
    const int8_t *in[MR];
    EACH_ROW
    for (size_t i = 0; i < MR; ++i) in[i] = i == 0 || i < mr ? a + i * a_stride : in[i - 1];
    igemm_mrx16c4(mr, nc, kc, 1, in, w, c, c_stride, rows, params, u8);
}

#endif
