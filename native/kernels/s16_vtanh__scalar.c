/* s16_vtanh__scalar.c — gemmlowp's tanh of values with integer_bits integer bits to Q0.15 (vactivation.h): the
 * specification, rl_s16_tanh (qs8_lstm_activations_ref.c) on each value. */
#include "qs8_lstm.h"
#include "vactivation.h"

void s16_vtanh__scalar(size_t n, int32_t integer_bits, const int16_t *x, int16_t *y) {
    for (size_t i = 0; i < n; ++i) y[i] = rl_s16_tanh(x[i], (int)integer_bits);
}
