/* qs8_tail__avx2.h — a row's last k < 16 bytes in and out of a 16-byte register without reading or writing
 * past the row (its end may be a page's end): pieces of 8, 4, 2 and 1 bytes, each a fixed-size access, moved
 * through general registers rather than a block on the stack (a variable-length memcpy is a library call, and
 * a wide load of bytes just stored one by one stalls; the element-wise kernels run one tail per broadcast row,
 * and rows of 24 channels spent most of their time there). */
#ifndef RILLET_QS8_TAIL_AVX2_H
#define RILLET_QS8_TAIL_AVX2_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline __m128i rl_load_tail_s8(const int8_t *p, size_t k) {
    size_t at = 0;
    unsigned shift = 0;
    uint64_t rest = 0; /* the bytes after the first 8 */
    __m128i v = _mm_setzero_si128();
    if (k & 8) {
        v = _mm_loadl_epi64((const __m128i *)p);
        at = 8;
    }
    if (k & 4) {
        uint32_t word;
        memcpy(&word, p + at, 4);
        rest = word;
        shift = 32;
        at += 4;
    }
    if (k & 2) {
        uint16_t half;
        memcpy(&half, p + at, 2);
        rest |= (uint64_t)half << shift;
        shift += 16;
        at += 2;
    }
    if (k & 1) rest |= (uint64_t)(uint8_t)p[at] << shift;
    return k & 8 ? _mm_insert_epi64(v, (long long)rest, 1) : _mm_cvtsi64_si128((long long)rest);
}

static inline void rl_store_tail_s8(int8_t *p, size_t k, __m128i v) {
    size_t at = 0;
    if (k & 8) {
        _mm_storel_epi64((__m128i *)p, v);
        v = _mm_unpackhi_epi64(v, v);
        at = 8;
    }
    uint64_t rest = (uint64_t)_mm_cvtsi128_si64(v);
    if (k & 4) {
        const uint32_t word = (uint32_t)rest;
        memcpy(p + at, &word, 4);
        rest >>= 32;
        at += 4;
    }
    if (k & 2) {
        const uint16_t half = (uint16_t)rest;
        memcpy(p + at, &half, 2);
        rest >>= 16;
        at += 2;
    }
    if (k & 1) p[at] = (int8_t)(uint8_t)rest;
}

#endif
