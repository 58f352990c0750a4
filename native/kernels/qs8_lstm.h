/* qs8_lstm.h — TFLite's integer LSTM (its 8x8->16 path: int8 input, output state and weights, int16 gates
 * and cell state, int32 biases), one step over a batch of rows: qs8_lstm_step. Everything that depends
 * only on the model (fixed-point multipliers, the zero points folded into the biases) is computed by the
 * op's prepare (native/ops/lstm_int8.c) and passed here in rl_qs8_lstm_params. */
#ifndef RILLET_QS8_LSTM_H
#define RILLET_QS8_LSTM_H

#include <stdint.h>

#include "kernels.h"

enum { RL_LSTM_INPUT_GATE = 0, RL_LSTM_FORGET_GATE, RL_LSTM_CELL_GATE, RL_LSTM_OUTPUT_GATE, RL_LSTM_GATES };

/* A real multiplier as TFLite's QuantizeMultiplier gives it: multiplier * 2^(shift - 31). */
typedef struct {
    int32_t multiplier, shift;
} rl_fixed_multiplier;

typedef struct {
    /* Per gate (the input gate's are NULL under CIFG): [n_cell, n_input] and [n_cell, n_output] weights, and
     * the int32 each row starts from (the gate bias unless layer-normalised, plus minus the input's or the
     * output state's zero point times the row's sum), with the scale from the sum to the gate's int16. */
    const int8_t *input_weights[RL_LSTM_GATES], *recurrent_weights[RL_LSTM_GATES];
    const int32_t *input_bias[RL_LSTM_GATES], *recurrent_bias[RL_LSTM_GATES];
    rl_fixed_multiplier input_scale[RL_LSTM_GATES], recurrent_scale[RL_LSTM_GATES];
    /* Peepholes (int16 [n_cell], none for the cell gate) and layer norm (int16 coefficients, the gate's
     * int32 bias, the coefficient scale, the variance used when a row's variance rounds to zero). */
    const int16_t *peephole[RL_LSTM_GATES];
    rl_fixed_multiplier peephole_scale[RL_LSTM_GATES];
    const int16_t *layer_norm[RL_LSTM_GATES];
    const int32_t *layer_norm_bias[RL_LSTM_GATES];
    rl_fixed_multiplier layer_norm_scale[RL_LSTM_GATES];
    int32_t variance_guard[RL_LSTM_GATES];
    /* The hidden state o * tanh(c) in int8 (hidden_scale, hidden_zero_point), then the projection (or NULL)
     * to the output state: [n_output, n_cell] weights, bias with the hidden zero point folded in. */
    rl_fixed_multiplier hidden_scale, projection_scale;
    const int8_t *projection;
    const int32_t *projection_bias;
    int32_t hidden_zero_point, output_zero_point;
    int32_t cell_exponent;  /* the cell state's scale is 2^cell_exponent, in [-15, -9] */
    int32_t cell_clip;      /* in the cell's int16 units, 0: none */
    int32_t projection_clip; /* in the output's int8 units, 0: none */
    int32_t batch, n_input, n_cell, n_output;
    int32_t peephole_per_row; /* 1: a batch-major sequence (TFLite's peephole then covers each row's first
                                 n_output cells; see qs8_lstm_step.c) */
} rl_qs8_lstm_params;

/* One step on the kernels k (any path's: the same bits): x [batch, n_input]; h [batch, n_output] (int8) and
 * c [batch, n_cell] (int16) are read and replaced. Scratch: gates, 4 * batch * n_cell int16; hidden, batch *
 * n_cell int8; sums, batch * max(n_cell, n_output) int32. */
void qs8_lstm_step(const rl_lstm_kernels *k, const rl_qs8_lstm_params *p, const int8_t *x, int8_t *h, int16_t *c,
                   int16_t *gates, int8_t *hidden, int32_t *sums);

/* gemmlowp's int16 fixed-point logistic of a Q3.12 value and tanh of a value with `integer_bits` (0 to 7)
 * integer bits, both to Q0.15, as TFLite's integer LSTM applies them (qs8_lstm_activations_ref.c). */
int16_t rl_s16_logistic_q3(int16_t x);
int16_t rl_s16_tanh(int16_t x, int integer_bits);

#endif
