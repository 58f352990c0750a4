/* lstm.h — UNIDIRECTIONAL_SEQUENCE_LSTM's int8 driver (lstm_int8.c), which the op's prepare and reset in
 * lstm.c hand an int8 LSTM to. */
#ifndef RILLET_LSTM_H
#define RILLET_LSTM_H

#include "ops.h"

rl_status rl_prepare_lstm_int8(rl_plan *plan, rl_op *op);
int rl_lstm_is_int8(const rl_op *op); /* prepared by rl_prepare_lstm_int8 */
void rl_reset_lstm_int8(rl_op *op);

#endif
