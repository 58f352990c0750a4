/* qd8_f32_qc8w_8x16c4__avx512vnni.h — what the 8x16c4 AVX-512 VNNI hybrid GEMM and IGEMM kernels share: the
 * products of qs8_qc8w_gemm_7x16c4__avx512vnni (vpdpbusd on the input bytes plus 128, xor 0x80: 4-product sums
 * exact in int32, adds wrapping like the scalar kernel's; the saturating vpdpbusds is not used) on qd8_gemm.h's
 * panels packed with kr 4, between a start of -(zero_point + 128) * sum(w) per row (the +128 taken back with
 * the zero point, so the sum is sum((x - zero_point) * w) modulo 2^32, the scalar kernel's bits) and the float
 * epilogue of qd8_f32_qc8w_6x16c2__avx2.h in 16 lanes. A narrow last panel (8 columns) loads under a mask of 8
 * lanes (fault-suppressing: nothing past the panel is read). Included only by AVX-512 VNNI files. */
#ifndef RILLET_QD8_F32_QC8W_8X16C4_AVX512VNNI_H
#define RILLET_QD8_F32_QC8W_8X16C4_AVX512VNNI_H

#include <immintrin.h>
#include <string.h>

#include "qd8_gemm.h"

enum { MR = 8, NR = 16 };

/* 4 input bytes from k, plus 128 each, broadcast: the rem (1..3) left when the row ends sooner, reading only the
 * row (their weights are zero past kc, so the bytes beside them add nothing). */
static inline __m512i broadcast_block(const int8_t *row, size_t k, size_t kc) {
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
    return _mm512_set1_epi32((int)(bits ^ UINT32_C(0x80808080)));
}

/* The first 16 (lanes 0xFFFF), or 8 (0x00FF: a narrow panel), 4-byte values at p; the rest zero. */
static inline __m512i load_columns(const void *p, __mmask16 lanes) { return _mm512_maskz_loadu_epi32(lanes, p); }

/* acc += the 4 input bytes at row (+ 128 each: vsign) times the 16 columns' 4 weights. The bytes are broadcast
 * from memory and flipped in the vector unit: flipped in a general register first (what gcc makes of
 * set1(bits ^ sign)), each needs a move from that register to the vector unit, and those moves, not the
 * products, bounded the loop. */
static inline __m512i dot_block(__m512i vacc, const int8_t *row, __m512i vw, __m512i vsign) {
    int32_t bits;
    memcpy(&bits, row, sizeof bits);
    const __m512i va = _mm512_set1_epi32(bits);
    return _mm512_dpbusd_epi32(vacc, _mm512_xor_si512(va, vsign), vw);
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

#endif
