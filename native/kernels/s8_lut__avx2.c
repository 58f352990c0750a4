/* s8_lut__avx2.c — any int8 -> int8 element-wise function as a 256-entry table (s8_lut_ref.c), 32 bytes at a
 * time with vpshufb: the int8 LOGISTIC, TANH, HARD_SWISH, GELU... of activation_int8.c and unary_math_int8.c.
 *
 * vpshufb looks up 16 entries (an index's low 4 bits) and gives 0 where the index's top bit is set. The table is
 * 16 chunks of 16; chunk k is looked up with the index less 16k, so that it answers while that difference is in
 * [0, 128): a window of 8 chunks. The answers of the chunks in a window are XORed, so each chunk is stored XORed
 * with those before it (telescoping: the window ending at chunk c gives chunk c's entries). The lower 8 chunks
 * take the index minus 16k wrapping; the upper 8 the index with its top bit flipped (minus 128), then minus 16
 * at a time saturating at -128, so an index below 128 never reaches them. A tail of fewer than 32 bytes goes
 * through a buffer on the stack, so nothing past the arrays is read or written; x and y may be the same array.
 */
#include <immintrin.h>
#include <string.h>

#include "kernels.h"

static inline __m256i lookup32(const __m256i tables[16], __m256i x) {
    const __m256i step = _mm256_set1_epi8(16);
    __m256i y = _mm256_shuffle_epi8(tables[0], x);
    __m256i i = x;
    for (int k = 1; k < 8; ++k) {
        i = _mm256_sub_epi8(i, step);
        y = _mm256_xor_si256(y, _mm256_shuffle_epi8(tables[k], i));
    }
    i = _mm256_xor_si256(x, _mm256_set1_epi8((char)0x80));
    y = _mm256_xor_si256(y, _mm256_shuffle_epi8(tables[8], i));
    for (int k = 9; k < 16; ++k) {
        i = _mm256_subs_epi8(i, step);
        y = _mm256_xor_si256(y, _mm256_shuffle_epi8(tables[k], i));
    }
    return y;
}

void s8_lut__avx2(int64_t count, const int8_t *table, const int8_t *x, int8_t *y) {
    __m256i chunk[16], tables[16];
    for (int k = 0; k < 16; ++k)
        chunk[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(table + 16 * k)));
    tables[0] = chunk[0];
    for (int k = 1; k < 8; ++k) tables[k] = _mm256_xor_si256(chunk[k - 1], chunk[k]);
    for (int k = 8; k < 16; ++k) tables[k] = _mm256_xor_si256(_mm256_xor_si256(chunk[k - 1], chunk[k]), tables[k - 8]);
    int64_t i = 0;
    for (; i + 32 <= count; i += 32) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(x + i));
        _mm256_storeu_si256((__m256i *)(void *)(y + i), lookup32(tables, v));
    }
    if (i < count) {
        int8_t buffer[32] = {0};
        const size_t tail = (size_t)(count - i);
        memcpy(buffer, x + i, tail);
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)buffer);
        _mm256_storeu_si256((__m256i *)(void *)buffer, lookup32(tables, v));
        memcpy(y + i, buffer, tail);
    }
}
