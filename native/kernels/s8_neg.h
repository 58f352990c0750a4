/* s8_neg.h — int8 NEG's kernel (s8_neg_ref.c). */
#ifndef RILLET_S8_NEG_H
#define RILLET_S8_NEG_H

#include <stddef.h>
#include <stdint.h>

void s8_neg_ref(size_t count, const int8_t *input, int8_t *output);

#endif
