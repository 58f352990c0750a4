/* f32_lstm_ref.c — one float32 LSTM step over a batch, TFLite's LstmStepFloat in its order: each gate is its
 * bias, plus the input weights times x, plus the recurrent weights times h (each a dot product added whole),
 * plus the peephole times c; i, f, o through the logistic, the cell gate through the options' activation;
 * c = f * c + g * i (i = 1 - f with CIFG), clipped; h = o * act(c), projected and clipped when the model
 * has a projection. A layer-normalised LSTM normalises each gate's sum (without its bias) over the cells to
 * mean 0 and variance 1 (TFLite's MeanStddevNormalization, 1e-8 added to the variance), scales it by the
 * gate's coefficients, then adds the bias. */
#include <math.h>

#include "f32_lstm_math.h"
#include "kernels.h"

/* gate[b][c] = bias[c] + W_x[c] . x[b] + W_h[c] . h[b] (+ peephole[c] * cell[b][c]), then activated; with
 * layer norm coefficients the bias waits until the row is normalised. */
static void gate(const rl_lstm_dims *d, const float *w_x, const float *w_h, const float *peephole, const float *bias,
                 const float *norm, const float *x, const float *h, const float *cell, int32_t activation, float *out) {
    for (int32_t b = 0; b < d->batch; ++b) {
        float *row = out + (int64_t)b * d->n_cell;
        for (int32_t c = 0; c < d->n_cell; ++c) {
            float v = bias && !norm ? bias[c] : 0.0f, dot = 0.0f;
            for (int32_t k = 0; k < d->n_input; ++k) dot += w_x[(int64_t)c * d->n_input + k] * x[(int64_t)b * d->n_input + k];
            v += dot;
            dot = 0.0f;
            for (int32_t k = 0; k < d->n_output; ++k) dot += w_h[(int64_t)c * d->n_output + k] * h[(int64_t)b * d->n_output + k];
            v += dot;
            if (peephole) v += peephole[c] * cell[(int64_t)b * d->n_cell + c];
            row[c] = v;
        }
        if (norm) rl_lstm_layer_norm(d->n_cell, norm, bias, row);
        for (int32_t c = 0; c < d->n_cell; ++c) row[c] = rl_lstm_activate(activation, row[c]);
    }
}

void f32_lstm_step_ref(const rl_lstm_dims *d, const rl_lstm_weights *w, const float *x, float *h, float *cell,
                       float *scratch) {
    const int64_t n = (int64_t)d->batch * d->n_cell;
    float *ig = scratch, *fg = scratch + n, *cg = scratch + 2 * n, *og = scratch + 3 * n;
    const int cifg = w->input_x == NULL;
    if (!cifg) gate(d, w->input_x, w->input_h, w->input_peephole, w->input_bias, w->input_norm, x, h, cell, 6, ig);
    gate(d, w->forget_x, w->forget_h, w->forget_peephole, w->forget_bias, w->forget_norm, x, h, cell, 6, fg);
    gate(d, w->cell_x, w->cell_h, NULL, w->cell_bias, w->cell_norm, x, h, cell, d->activation, cg);
    for (int64_t i = 0; i < n; ++i) {
        float c = fg[i] * cell[i];
        c += cg[i] * (cifg ? 1.0f - fg[i] : ig[i]);
        if (d->cell_clip > 0.0f) c = c < -d->cell_clip ? -d->cell_clip : (c > d->cell_clip ? d->cell_clip : c);
        cell[i] = c;
    }
    gate(d, w->output_x, w->output_h, w->output_peephole, w->output_bias, w->output_norm, x, h, cell, 6, og);
    /* With no activation TFLite's kernel multiplies by the buffer the activation would have written, which
     * still holds the cell gate (probed: LiteRT's h is o * g there, not o * c). */
    for (int64_t i = 0; i < n; ++i) og[i] = og[i] * (d->activation ? rl_lstm_activate(d->activation, cell[i]) : cg[i]);
    if (!w->projection) {
        for (int64_t i = 0; i < n; ++i) h[i] = og[i];
        return;
    }
    for (int32_t b = 0; b < d->batch; ++b)
        for (int32_t o = 0; o < d->n_output; ++o) {
            float v = w->projection_bias ? w->projection_bias[o] : 0.0f, dot = 0.0f;
            for (int32_t c = 0; c < d->n_cell; ++c) dot += w->projection[(int64_t)o * d->n_cell + c] * og[(int64_t)b * d->n_cell + c];
            v += dot;
            if (d->proj_clip > 0.0f) v = v < -d->proj_clip ? -d->proj_clip : (v > d->proj_clip ? d->proj_clip : v);
            h[(int64_t)b * d->n_output + o] = v;
        }
}
