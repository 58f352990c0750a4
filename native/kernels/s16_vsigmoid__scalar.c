/* s16_vsigmoid__scalar.c — gemmlowp's logistic of Q3.12 values to Q0.15 (vactivation.h): the specification,
 * rl_s16_logistic_q3 (qs8_lstm_activations_ref.c) on each value. */
#include "qs8_lstm.h"
#include "vactivation.h"

void s16_vsigmoid__scalar(size_t n, const int16_t *x, int16_t *y) {
    for (size_t i = 0; i < n; ++i) y[i] = rl_s16_logistic_q3(x[i]);
}
