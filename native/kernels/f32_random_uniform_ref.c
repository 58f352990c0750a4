/* f32_random_uniform_ref.c — uniform floats in [0, 1) from the Philox4x32-10 counter-based generator, the
 * stream TensorFlow's and TFLite's RANDOM_UNIFORM draw: each call of the generator gives four 32-bit words
 * and steps the 128-bit counter by one; a word becomes a float by taking its low 23 bits as the mantissa
 * of a number in [1, 2) and subtracting 1. Words left over when n is not a multiple of four are dropped,
 * as TFLite drops them, so the next call starts from a fresh counter. (Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3", SC 2011.) */
#include <string.h>

#include "kernels.h"

enum { ROUNDS = 10 };
static const uint32_t KEY_STEP_0 = 0x9E3779B9u, KEY_STEP_1 = 0xBB67AE85u;
static const uint32_t MULTIPLIER_0 = 0xD2511F53u, MULTIPLIER_1 = 0xCD9E8D57u;

static void philox_block(const uint32_t counter[4], const uint32_t key_in[2], uint32_t out[4]) {
    uint32_t c[4], key[2] = {key_in[0], key_in[1]};
    memcpy(c, counter, sizeof c);
    for (int round = 0; round < ROUNDS; ++round) {
        const uint64_t p0 = (uint64_t)MULTIPLIER_0 * c[0], p1 = (uint64_t)MULTIPLIER_1 * c[2];
        const uint32_t next[4] = {(uint32_t)(p1 >> 32) ^ c[1] ^ key[0], (uint32_t)p1,
                                  (uint32_t)(p0 >> 32) ^ c[3] ^ key[1], (uint32_t)p0};
        memcpy(c, next, sizeof c);
        key[0] += KEY_STEP_0;
        key[1] += KEY_STEP_1;
    }
    memcpy(out, c, sizeof c);
}

static float word_to_unit_float(uint32_t word) {
    const uint32_t bits = (127u << 23) | (word & 0x7fffffu);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f - 1.0f;
}

void f32_random_uniform_ref(const uint32_t key[2], uint32_t counter[4], int64_t n, float *out) {
    for (int64_t i = 0; i < n; i += 4) {
        uint32_t words[4];
        philox_block(counter, key, words);
        for (int k = 0; k < 4 && ++counter[k] == 0; ++k) {
        } /* the 128-bit counter's increment, carrying into the next word */
        for (int64_t j = 0; j < 4 && i + j < n; ++j) out[i + j] = word_to_unit_float(words[j]);
    }
}
