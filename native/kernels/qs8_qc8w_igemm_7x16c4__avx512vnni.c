/* qs8_qc8w_igemm_7x16c4__avx512vnni.c — int8 IGEMM (rows through an indirection buffer), per-channel int8
 * weights, 7 rows x 16 columns, kr 4, AVX-512 VNNI.
 *
 * vpdpbusd multiplies unsigned by signed bytes, so every input byte gets 128 added (xor 0x80) and the packer
 * folds -128 * sum(w) into the bias (the config's input_offset 128). Its 4-product sums fit int32 exactly and
 * its adds wrap like the specification's (the saturating vpdpbusds is not used). One broadcast of 4 input
 * bytes per row and one load of 16 columns x 4 weights per step; no horizontal sums. The requantization is
 * rl_requantize_fp32's, vectorised (vcvtps2dq rounds to nearest even in the default rounding mode); a row's
 * last partial block of 4 is loaded without reading past kc (its weights are zero past kc).
 *
 * A last panel of at most 8 columns is packed 8 wide (gemm.h): its biases, weights and scales load under a mask
 * of 8 lanes (fault-suppressing, so nothing past the panel is read; the upper lanes are zero and never stored).
 */
#include <immintrin.h>
#include <string.h>

#include "qs8_configs.h"

/* 4 input bytes from k, plus 128 each, broadcast: rem (1..3) of them when the row ends sooner, reading only the
 * row. */
static __m512i broadcast_block(const int8_t *row, size_t k, size_t kc) {
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

/* The first 16 (lanes 0xFFFF), or 8 (0x00FF: a narrow panel), int32 or 4-byte values at p; the rest zero. */
static inline __m512i load_columns(const void *p, __mmask16 lanes) { return _mm512_maskz_loadu_epi32(lanes, p); }

/* acc += the 4 input bytes at row (+ 128 each) times the 16 columns' 4 weights. The bytes are broadcast from
 * memory and flipped in the vector (one vpxord with an embedded broadcast, no general-register round trip);
 * the vpdpbusd is written out because gcc 12 gives its intrinsic a separate destination and then copies each of
 * the 7 accumulators twice per step of the depth loop (14 register moves beside 7 vpdpbusd: half the time of a
 * depth-64 attention GEMM). The emulated AVX-512 build (SIMDe, no __AVX512VNNI__) keeps the intrinsic. */
static __m512i dot_block(__m512i vacc, const int8_t *row, __m512i vw, __m512i vsign) {
    int32_t bits;
    memcpy(&bits, row, sizeof bits);
    const __m512i va = _mm512_xor_si512(_mm512_set1_epi32(bits), vsign);
#if defined(__AVX512VNNI__) && defined(__GNUC__)
    __asm__("vpdpbusd %2, %1, %0" : "+v"(vacc) : "v"(va), "v"(vw));
    return vacc;
#else
    return _mm512_dpbusd_epi32(vacc, va, vw);
#endif
}

/* Requantizes 16 columns and writes the n of them vmask selects. */
static void requantize_store(int8_t *c, __mmask16 vmask, __m512i vacc, __m512 vscale,
                             const rl_qs8_requantization_params *params) {
    __m512 vf = _mm512_mul_ps(_mm512_cvtepi32_ps(vacc), vscale);
    vf = _mm512_min_ps(_mm512_max_ps(vf, _mm512_set1_ps(params->min_less_zero_point)),
                       _mm512_set1_ps(params->max_less_zero_point));
    const __m512i vq = _mm512_add_epi32(_mm512_cvtps_epi32(vf), _mm512_set1_epi32(params->output_zero_point));
    /* In [-128, 127] already: the saturating narrowing is exact; the masked store writes only n bytes. */
    _mm_mask_storeu_epi8(c, vmask, _mm512_cvtsepi32_epi8(vq));
}

void qs8_qc8w_igemm_7x16c4__avx512vnni(size_t mr, size_t nc, size_t kc, size_t ks, const int8_t *const *indirection,
                                       const void *w, int8_t *c, size_t c_stride,
                                       const rl_qs8_requantization_params *params) {
    enum { MR = 7, NR = 16 };
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
    int8_t *c4 = c3 + c_stride;
    if (mr <= 4) {
        c4 = c3;
    }
    int8_t *c5 = c4 + c_stride;
    if (mr <= 5) {
        c5 = c4;
    }
    int8_t *c6 = c5 + c_stride;
    if (mr <= 6) {
        c6 = c5;
    }
    const size_t kfull = kc & ~(size_t)3;
    const unsigned char *panel = w;
    const __m512i vsign = _mm512_set1_epi32((int)UINT32_C(0x80808080));
    for (size_t n0 = 0; n0 < nc; n0 += NR) {
        const size_t width = nc - n0 <= 8 ? 8 : NR;
        const __mmask16 lanes = (__mmask16)((UINT32_C(1) << width) - 1);
        const int8_t *wk = (const int8_t *)(panel + width * sizeof(int32_t));
        __m512i vacc0 = load_columns(panel, lanes);
        __m512i vacc1 = load_columns(panel, lanes);
        __m512i vacc2 = load_columns(panel, lanes);
        __m512i vacc3 = load_columns(panel, lanes);
        __m512i vacc4 = load_columns(panel, lanes);
        __m512i vacc5 = load_columns(panel, lanes);
        __m512i vacc6 = load_columns(panel, lanes);
        for (size_t p = 0; p < ks; ++p) {
            const int8_t *a0 = indirection[p * MR];
            const int8_t *a1 = mr > 1 ? indirection[p * MR + 1] : a0;
            const int8_t *a2 = mr > 2 ? indirection[p * MR + 2] : a1;
            const int8_t *a3 = mr > 3 ? indirection[p * MR + 3] : a2;
            const int8_t *a4 = mr > 4 ? indirection[p * MR + 4] : a3;
            const int8_t *a5 = mr > 5 ? indirection[p * MR + 5] : a4;
            const int8_t *a6 = mr > 6 ? indirection[p * MR + 6] : a5;
            size_t k = 0;
            for (; k < kfull; k += 4, wk += 4 * width) {
                const __m512i vw = load_columns(wk, lanes);
                vacc0 = dot_block(vacc0, a0 + k, vw, vsign);
                vacc1 = dot_block(vacc1, a1 + k, vw, vsign);
                vacc2 = dot_block(vacc2, a2 + k, vw, vsign);
                vacc3 = dot_block(vacc3, a3 + k, vw, vsign);
                vacc4 = dot_block(vacc4, a4 + k, vw, vsign);
                vacc5 = dot_block(vacc5, a5 + k, vw, vsign);
                vacc6 = dot_block(vacc6, a6 + k, vw, vsign);
            }
            if (k < kc) {
                const __m512i vw = load_columns(wk, lanes);
                vacc0 = _mm512_dpbusd_epi32(vacc0, broadcast_block(a0, k, kc), vw);
                vacc1 = _mm512_dpbusd_epi32(vacc1, broadcast_block(a1, k, kc), vw);
                vacc2 = _mm512_dpbusd_epi32(vacc2, broadcast_block(a2, k, kc), vw);
                vacc3 = _mm512_dpbusd_epi32(vacc3, broadcast_block(a3, k, kc), vw);
                vacc4 = _mm512_dpbusd_epi32(vacc4, broadcast_block(a4, k, kc), vw);
                vacc5 = _mm512_dpbusd_epi32(vacc5, broadcast_block(a5, k, kc), vw);
                vacc6 = _mm512_dpbusd_epi32(vacc6, broadcast_block(a6, k, kc), vw);
                wk += 4 * width;
            }
        }
        const __m512 vscale = _mm512_castsi512_ps(load_columns(wk, lanes));
        const size_t n = nc - n0 < NR ? nc - n0 : NR;
        const __mmask16 vmask = (__mmask16)((UINT32_C(1) << n) - 1);
        requantize_store(c0 + n0, vmask, vacc0, vscale, params);
        requantize_store(c1 + n0, vmask, vacc1, vscale, params);
        requantize_store(c2 + n0, vmask, vacc2, vscale, params);
        requantize_store(c3 + n0, vmask, vacc3, vscale, params);
        requantize_store(c4 + n0, vmask, vacc4, vscale, params);
        requantize_store(c5 + n0, vmask, vacc5, vscale, params);
        requantize_store(c6 + n0, vmask, vacc6, vscale, params);
        panel = (const unsigned char *)(wk + width * sizeof(float)); /* past the scales */
    }
}
