/* qs8_qc8w_gemm_packw_16c2__avx2.c — one full panel of gemm.h's int8 layout for nr 16, kr 2 (the AVX2 tile), AVX2:
 * rl_pack_qs8_gemm's bytes and column sums (qs8_pack.c's generic panel is the specification).
 *
 * The panel is the transpose of 16 weight rows in 2-byte groups. 16 bytes (8 groups) of rows j and j + 8 share
 * a vector, one row in each 128-bit lane, and three stages of unpacks (16, 32, 64 bits, each within its lane)
 * transpose 8 such vectors: vector g then holds group g of rows 0-7 and of rows 8-15, the panel's 32 bytes for
 * that group, stored whole. Each row's sum is a psadbw of its bytes offset by 128 (unsigned) against zero, four
 * 64-bit partial sums a vector. The generic panel moves 8 bytes a step in 64-bit words (~3.8 instructions a
 * weight byte); this ~0.3, where MobileNetV2 1.0's prepare packed 2.2M weight bytes. The last depth % 16 bytes
 * go 2 at a time. */
#include <immintrin.h>
#include <string.h>

#include "qs8_configs.h"

void qs8_qc8w_gemm_packw_16c2__avx2(size_t depth, const int8_t *rows, void *packed, uint32_t *sums) {
    unsigned char *out = packed;
    const __m256i offset = _mm256_set1_epi8((char)0x80), zero = _mm256_setzero_si256();
    __m256i acc[8];
    for (size_t j = 0; j < 8; ++j) acc[j] = zero;
    size_t k = 0;
    for (; k + 16 <= depth; k += 16, out += 8 * 32) {
        __m256i x[8];
        for (size_t j = 0; j < 8; ++j) {
            x[j] = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(rows + j * depth + k))),
                _mm_loadu_si128((const __m128i *)(rows + (j + 8) * depth + k)), 1);
            acc[j] = _mm256_add_epi64(acc[j], _mm256_sad_epu8(_mm256_xor_si256(x[j], offset), zero));
        }
        const __m256i t0 = _mm256_unpacklo_epi16(x[0], x[1]), t1 = _mm256_unpackhi_epi16(x[0], x[1]);
        const __m256i t2 = _mm256_unpacklo_epi16(x[2], x[3]), t3 = _mm256_unpackhi_epi16(x[2], x[3]);
        const __m256i t4 = _mm256_unpacklo_epi16(x[4], x[5]), t5 = _mm256_unpackhi_epi16(x[4], x[5]);
        const __m256i t6 = _mm256_unpacklo_epi16(x[6], x[7]), t7 = _mm256_unpackhi_epi16(x[6], x[7]);
        const __m256i u0 = _mm256_unpacklo_epi32(t0, t2), u1 = _mm256_unpackhi_epi32(t0, t2);
        const __m256i u2 = _mm256_unpacklo_epi32(t1, t3), u3 = _mm256_unpackhi_epi32(t1, t3);
        const __m256i u4 = _mm256_unpacklo_epi32(t4, t6), u5 = _mm256_unpackhi_epi32(t4, t6);
        const __m256i u6 = _mm256_unpacklo_epi32(t5, t7), u7 = _mm256_unpackhi_epi32(t5, t7);
        _mm256_storeu_si256((__m256i *)(out + 0 * 32), _mm256_unpacklo_epi64(u0, u4));
        _mm256_storeu_si256((__m256i *)(out + 1 * 32), _mm256_unpackhi_epi64(u0, u4));
        _mm256_storeu_si256((__m256i *)(out + 2 * 32), _mm256_unpacklo_epi64(u1, u5));
        _mm256_storeu_si256((__m256i *)(out + 3 * 32), _mm256_unpackhi_epi64(u1, u5));
        _mm256_storeu_si256((__m256i *)(out + 4 * 32), _mm256_unpacklo_epi64(u2, u6));
        _mm256_storeu_si256((__m256i *)(out + 5 * 32), _mm256_unpackhi_epi64(u2, u6));
        _mm256_storeu_si256((__m256i *)(out + 6 * 32), _mm256_unpacklo_epi64(u3, u7));
        _mm256_storeu_si256((__m256i *)(out + 7 * 32), _mm256_unpackhi_epi64(u3, u7));
    }
    for (size_t j = 0; j < 8; ++j) {
        uint64_t lane[4];
        _mm256_storeu_si256((__m256i *)lane, acc[j]);
        /* The sums counted each byte plus 128; wrapping, as the kernels' accumulation. */
        sums[j] = (uint32_t)(lane[0] + lane[1]) - 128u * (uint32_t)k;
        sums[j + 8] = (uint32_t)(lane[2] + lane[3]) - 128u * (uint32_t)k;
    }
    for (; k < depth; k += 2, out += 32)
        for (size_t j = 0; j < 16; ++j) {
            memcpy(out + j * 2, rows + j * depth + k, 2);
            sums[j] += (uint32_t)(int32_t)rows[j * depth + k] + (uint32_t)(int32_t)rows[j * depth + k + 1];
        }
}
