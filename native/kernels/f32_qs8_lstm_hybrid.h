/* f32_qs8_lstm_hybrid.h — one step of TFLite's hybrid (dynamic-range) LSTM (f32_qs8_lstm_hybrid_step.c), which
 * lstm_hybrid.c drives: float32 input, state and gate math, int8 weights with one scale each. */
#ifndef RILLET_F32_QS8_LSTM_HYBRID_H
#define RILLET_F32_QS8_LSTM_HYBRID_H

#include "kernels.h"

/* The weights of the gates in TFLite's order (input, forget, cell, output); NULL where the model has none
 * (CIFG: the input gate; peepholes: none for the cell gate). row_sums (asymmetric inputs only, else NULL):
 * each weight row's sum, gate g's input rows at g * 2 * n_cell, its recurrent rows after them, the
 * projection's n_output rows at 8 * n_cell. */
typedef struct {
    const int8_t *input_x[4], *input_h[4], *peephole[4], *projection;
    float scale_x[4], scale_h[4], scale_peephole[4], scale_projection;
    const float *bias[4], *layer_norm[4], *projection_bias;
    const int32_t *row_sums;
} rl_f32_qs8_lstm_hybrid_weights;

/* Per step: the four gates' sums ([4][batch][n_cell]), the hidden state o * act(c) ([batch][n_cell]), the
 * peepholes' weights times their scale ([n_cell]), the int8 copies of x, h and the hidden state and their
 * per-row scales and zero points ([batch] each), a product's int32 sums ([batch][max(n_cell, n_output)]). */
typedef struct {
    float *gates, *hidden, *peephole;
    int32_t *dots;
    int8_t *q_x, *q_h, *q_hidden;
    float *scale_x, *scale_h, *scale_hidden;
    int32_t *zero_x, *zero_h, *zero_hidden;
} rl_f32_qs8_lstm_hybrid_scratch;

void f32_qs8_lstm_hybrid_step(const rl_lstm_kernels *k, const rl_lstm_dims *d, int32_t asymmetric,
                              const rl_f32_qs8_lstm_hybrid_weights *w, const float *x, float *h, float *cell,
                              const rl_f32_qs8_lstm_hybrid_scratch *s);

#endif
