/* s8_neg_ref.c — int8 NEG as TFLite's kernel computes it: the stored integers negated, modulo 2^8.
 *
 * TFLite negates the int8 values themselves and reads neither tensor's scale nor zero point, so -128 stays
 * -128 (its negation wraps) and the result is the real negation only when both tensors share one scale and a
 * zero point of 0. The negation goes through uint8 so the wrap is defined behaviour. */
#include "s8_neg.h"

void s8_neg_ref(size_t count, const int8_t *input, int8_t *output) {
    for (size_t i = 0; i < count; ++i) output[i] = (int8_t)(uint8_t)(0u - (uint8_t)input[i]);
}
