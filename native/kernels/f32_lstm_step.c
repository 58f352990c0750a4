/* f32_lstm_step.c — one float32 LSTM step over a batch, TFLite's LstmStepFloat in its order: each gate is its
 * bias, plus the input weights times x, plus the recurrent weights times h (each a dot product added whole),
 * plus the peephole times c; i, f, o through the logistic, the cell gate through the options' activation;
 * c = f * c + g * i (i = 1 - f with CIFG), clipped; h = o * act(c), projected and clipped when the model
 * has a projection. A layer-normalised LSTM normalises each gate's sum (without its bias) over the cells to
 * mean 0 and variance 1 (TFLite's MeanStddevNormalization, 1e-8 added to the variance), scales it by the
 * gate's coefficients, then adds the bias.
 *
 * The dot products run on the plan's row-dot kernel, reading the weights where the model holds them, and the
 * logistic and tanh on its activation kernels: with the scalar kernels (k ascending from 0, libm's expf and
 * tanhf) this is the reference arithmetic; SIMD kernels sum in lanes and approximate within a few ulps. */
#include <math.h>

#include "f32_lstm_math.h"
#include "kernels.h"

/* The activation of a gate's batch * n_cell values, in place: logistic and tanh on the kernels, the rest here. */
void rl_lstm_activate_gate(const rl_lstm_kernels *k, int32_t activation, int64_t n, float *v) {
    if (activation == 6) k->activation.f32_sigmoid((size_t)n, v, v);
    else if (activation == 4) k->activation.f32_tanh((size_t)n, v, v);
    else
        for (int64_t i = 0; i < n; ++i) v[i] = rl_lstm_activate(activation, v[i]);
}

/* gate[b][c] = bias[c] + W_x[c] . x[b] + W_h[c] . h[b] (+ peephole[c] * cell[b][c]), then activated; with
 * layer norm coefficients the bias waits until the row is normalised. product: batch * n_cell floats. */
static void gate(const rl_lstm_kernels *k, const rl_lstm_dims *d, const float *w_x, const float *w_h,
                 const float *peephole, const float *bias, const float *norm, const float *x, const float *h,
                 const float *cell, int32_t activation, float *out, float *product) {
    const rl_f32_minmax_params unclamped = {-INFINITY, INFINITY};
    const int32_t B = d->batch, C = d->n_cell;
    k->f32_rowdot((size_t)B, (size_t)C, (size_t)d->n_input, x, (size_t)d->n_input, w_x, NULL, out, (size_t)C,
                  &unclamped);
    k->f32_rowdot((size_t)B, (size_t)C, (size_t)d->n_output, h, (size_t)d->n_output, w_h, NULL, product, (size_t)C,
                  &unclamped);
    for (int32_t b = 0; b < B; ++b) {
        float *row = out + (int64_t)b * C;
        const float *recurrent = product + (int64_t)b * C, *c_row = cell + (int64_t)b * C;
        for (int32_t c = 0; c < C; ++c) {
            float v = bias && !norm ? bias[c] : 0.0f;
            v += row[c];
            v += recurrent[c];
            if (peephole) v += peephole[c] * c_row[c];
            row[c] = v;
        }
        if (norm) rl_lstm_layer_norm(C, norm, bias, row);
    }
    rl_lstm_activate_gate(k, activation, (int64_t)B * C, out);
}

void f32_lstm_step(const rl_lstm_kernels *k, const rl_lstm_dims *d, const rl_lstm_weights *w, const float *x, float *h,
                   float *cell, float *scratch) {
    const int64_t n = (int64_t)d->batch * d->n_cell;
    float *ig = scratch, *fg = scratch + n, *cg = scratch + 2 * n, *og = scratch + 3 * n, *product = scratch + 4 * n;
    const int cifg = w->input_x == NULL;
    if (!cifg)
        gate(k, d, w->input_x, w->input_h, w->input_peephole, w->input_bias, w->input_norm, x, h, cell, 6, ig, product);
    gate(k, d, w->forget_x, w->forget_h, w->forget_peephole, w->forget_bias, w->forget_norm, x, h, cell, 6, fg,
         product);
    gate(k, d, w->cell_x, w->cell_h, NULL, w->cell_bias, w->cell_norm, x, h, cell, d->activation, cg, product);
    for (int64_t i = 0; i < n; ++i) {
        float c = fg[i] * cell[i];
        c += cg[i] * (cifg ? 1.0f - fg[i] : ig[i]);
        if (d->cell_clip > 0.0f) c = c < -d->cell_clip ? -d->cell_clip : (c > d->cell_clip ? d->cell_clip : c);
        cell[i] = c;
    }
    gate(k, d, w->output_x, w->output_h, w->output_peephole, w->output_bias, w->output_norm, x, h, cell, 6, og,
         product);
    /* With no activation TFLite's kernel multiplies by the buffer the activation would have written, which
     * still holds the cell gate (probed: LiteRT's h is o * g there, not o * c). */
    float *cell_activation = product;
    for (int64_t i = 0; i < n; ++i) cell_activation[i] = d->activation ? cell[i] : cg[i];
    if (d->activation) rl_lstm_activate_gate(k, d->activation, n, cell_activation);
    for (int64_t i = 0; i < n; ++i) og[i] = og[i] * cell_activation[i];
    if (!w->projection) {
        for (int64_t i = 0; i < n; ++i) h[i] = og[i];
        return;
    }
    const rl_f32_minmax_params unclamped = {-INFINITY, INFINITY};
    k->f32_rowdot((size_t)d->batch, (size_t)d->n_output, (size_t)d->n_cell, og, (size_t)d->n_cell, w->projection, NULL,
                  h, (size_t)d->n_output, &unclamped);
    for (int32_t b = 0; b < d->batch; ++b)
        for (int32_t o = 0; o < d->n_output; ++o) {
            float v = w->projection_bias ? w->projection_bias[o] : 0.0f;
            v += h[(int64_t)b * d->n_output + o];
            if (d->proj_clip > 0.0f) v = v < -d->proj_clip ? -d->proj_clip : (v > d->proj_clip ? d->proj_clip : v);
            h[(int64_t)b * d->n_output + o] = v;
        }
}
