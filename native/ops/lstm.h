/* lstm.h — UNIDIRECTIONAL_SEQUENCE_LSTM's int8 driver (lstm_int8.c) and hybrid driver (lstm_hybrid.c: float32
 * input, int8 weights), which the op's prepare and reset in lstm.c hand those LSTMs to. */
#ifndef RILLET_LSTM_H
#define RILLET_LSTM_H

#include "ops.h"

rl_status rl_prepare_lstm_int8(rl_plan *plan, rl_op *op);
int rl_lstm_is_int8(const rl_op *op); /* prepared by rl_prepare_lstm_int8 */
void rl_reset_lstm_int8(rl_op *op);
rl_status rl_prepare_lstm_hybrid(rl_plan *plan, rl_op *op);
int rl_lstm_is_hybrid(const rl_op *op); /* prepared by rl_prepare_lstm_hybrid */
void rl_reset_lstm_hybrid(rl_op *op);

/* Whether none of w's n bytes is -128 (the narrow-weight kernels' condition, rl_lstm_kernels_of); w may be NULL. */
static inline int rl_lstm_narrow_weights(const int8_t *w, size_t n) {
    for (size_t i = 0; w && i < n; ++i)
        if (w[i] == INT8_MIN) return 0;
    return 1;
}

#endif
