/* qs8_lstm_step.c — one step of TFLite's integer LSTM over a batch (lstm_eval.cc's LstmStepInteger8x8_16 with
 * its portable tensor_utils, which LiteRT's default Interpreter runs on every build: XNNPACK does not take the
 * op and the x86 build routes these functions to the portable ones). Per gate: the int32 sum of the input
 * row times its weights (from the prepared bias) rescaled to int16 and saturated, then the same for h added
 * and saturated, then the peephole c * w rescaled and added; layer norm in integers when the model has it;
 * logistic (Q3.12 in) or tanh for the cell gate, Q0.15 out. c = f * c >> 15 plus i * g >> (30 + cell
 * exponent) (i = 1 - f under CIFG), saturated and clipped; h = o * tanh(c) rescaled to int8, projected when
 * the model has a projection. Every rounding is gemmlowp's (halves away from zero). The int32 sums run on the
 * plan's int8-to-int32 row-dot kernel (rowdot.h), reading the weights where the model holds them, and the
 * activations on its int16 logistic and tanh (vactivation.h): the same bits on every path. */
#include <string.h>

#include "kernels.h"
#include "qs8_lstm.h"
#include "quant.h"

static int32_t saturate(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int32_t mul_fixed(int32_t x, rl_fixed_multiplier m) { return rl_mul_by_quantized_multiplier(x, m.multiplier, m.shift); }

/* out[b, r] = saturate(out[b, r] + scale(bias[r] + sum_k x[b, k] w[r, k])), TFLite's
 * MatrixBatchVectorMultiplyAccumulate into int16; its int32 sum wraps as TFLite's does. sums: batch * rows. */
static void multiply_accumulate16(rl_s8_s32_rowdot_fn rowdot, const int8_t *x, const int32_t *bias, const int8_t *w,
                                  rl_fixed_multiplier scale, int32_t batch, int32_t cols, int32_t rows, int32_t *sums,
                                  int16_t *out) {
    rowdot((size_t)batch, (size_t)rows, (size_t)cols, x, (size_t)cols, w, bias, sums, (size_t)rows);
    for (int32_t i = 0; i < batch * rows; ++i)
        out[i] = (int16_t)saturate(mul_fixed(sums[i], scale) + out[i], INT16_MIN, INT16_MAX);
}

/* TFLite's ApplyLayerNorm on one gate's rows: mean and variance in integers with 10 extra bits, the inverse
 * standard deviation as a fixed-point multiplier, times the coefficients, plus the bias, rescaled to Q3.12. */
static void layer_norm(const rl_qs8_lstm_params *p, int gate, int16_t *g) {
    const int32_t n = p->n_cell;
    const int16_t *weights = p->layer_norm[gate];
    const int32_t *bias = p->layer_norm_bias[gate];
    const rl_fixed_multiplier scale = p->layer_norm_scale[gate];
    for (int32_t b = 0; b < p->batch; ++b) {
        int16_t *row = g + (int64_t)b * n;
        int64_t sum = 0, sum_squares = 0;
        for (int32_t k = 0; k < n; ++k) {
            sum += row[k];
            sum_squares += (int32_t)row[k] * row[k];
        }
        const int32_t mean = (int32_t)(sum * 1024 / n);
        const int64_t variance = sum_squares * ((1 << 20) / n) - (int64_t)mean * mean; /* exact only for 2^k cells, as TFLite */
        int32_t variance20 = (int32_t)(variance / (1 << 20));
        if (variance20 < 1) variance20 = p->variance_guard[gate];
        int32_t inv_multiplier, inv_shift;
        s8_inv_sqrt_multiplier(variance20, &inv_multiplier, &inv_shift);
        for (int32_t k = 0; k < n; ++k) {
            const int32_t normalized = rl_mul_by_quantized_multiplier(1024 * row[k] - mean, inv_multiplier, inv_shift);
            /* TFLite multiplies and adds in int32 (wrapping) before widening */
            const int64_t weighted = (int32_t)((uint32_t)normalized * (uint32_t)(int32_t)weights[k] + (uint32_t)bias[k]);
            const int32_t rounded = (int32_t)((weighted > 0 ? weighted + 512 : weighted - 512) / 1024);
            row[k] = (int16_t)saturate(rl_mul_by_quantized_multiplier(rounded, scale.multiplier, scale.shift + 12),
                                       INT16_MIN, INT16_MAX);
        }
    }
}

static void compute_gate(const rl_qs8_lstm_params *p, const rl_lstm_kernels *k, int gate, const int8_t *x,
                         const int8_t *h, const int16_t *c, int32_t *sums, int16_t *g) {
    const int32_t batch = p->batch, n_cell = p->n_cell;
    memset(g, 0, sizeof(int16_t) * (size_t)batch * (size_t)n_cell);
    multiply_accumulate16(k->s8_s32_rowdot, x, p->input_bias[gate], p->input_weights[gate], p->input_scale[gate],
                          batch, p->n_input, n_cell, sums, g);
    multiply_accumulate16(k->s8_s32_rowdot, h, p->recurrent_bias[gate], p->recurrent_weights[gate],
                          p->recurrent_scale[gate], batch, p->n_output, n_cell, sums, g);
    /* TFLite's integer peephole covers n_output values a call (it passes n_output where n_cell is meant): a
     * batch-major sequence, run a row at a time, gets it on each row's first n_output cells, a time-major one
     * on the step's first batch * n_output values, across rows. Kept, for its bits (the same as the plain
     * peephole when n_output == n_cell; the op refuses more outputs than cells). */
    if (p->peephole[gate])
        for (int32_t b = 0; b < batch; ++b)
            for (int32_t j = 0; j < p->n_output; ++j) {
                const int32_t i = p->peephole_per_row ? b * n_cell + j : b * p->n_output + j;
                const int32_t v = mul_fixed((int32_t)p->peephole[gate][j] * c[i], p->peephole_scale[gate]) + g[i];
                g[i] = (int16_t)saturate(v, INT16_MIN, INT16_MAX);
            }
    if (p->layer_norm[gate]) layer_norm(p, gate, g);
    if (gate == RL_LSTM_CELL_GATE) k->activation.s16_tanh((size_t)batch * (size_t)n_cell, 3, g, g);
    else k->activation.s16_sigmoid((size_t)batch * (size_t)n_cell, g, g);
}

void qs8_lstm_step(const rl_lstm_kernels *k, const rl_qs8_lstm_params *p, const int8_t *x, int8_t *h, int16_t *c,
                   int16_t *gates, int8_t *hidden, int32_t *sums) {
    const int32_t count = p->batch * p->n_cell;
    int16_t *input_gate = gates, *forget_gate = gates + count, *cell_gate = gates + 2 * count;
    int16_t *output_gate = gates + 3 * count;
    const int cifg = p->input_weights[RL_LSTM_INPUT_GATE] == NULL;
    if (!cifg) compute_gate(p, k, RL_LSTM_INPUT_GATE, x, h, c, sums, input_gate);
    compute_gate(p, k, RL_LSTM_FORGET_GATE, x, h, c, sums, forget_gate);
    compute_gate(p, k, RL_LSTM_CELL_GATE, x, h, c, sums, cell_gate);
    const int32_t update_shift = 30 + p->cell_exponent;
    for (int32_t i = 0; i < count; ++i) {
        const int16_t kept = (int16_t)rl_rounding_divide_by_pot((int32_t)forget_gate[i] * c[i], 15);
        const int16_t in = cifg ? (int16_t)(INT16_MAX - forget_gate[i]) : input_gate[i];
        const int16_t added = (int16_t)rl_rounding_divide_by_pot((int32_t)in * cell_gate[i], update_shift);
        int32_t v = saturate((int32_t)kept + added, INT16_MIN, INT16_MAX);
        if (p->cell_clip > 0) v = saturate(v, -p->cell_clip, p->cell_clip);
        c[i] = (int16_t)v;
    }
    compute_gate(p, k, RL_LSTM_OUTPUT_GATE, x, h, c, sums, output_gate);
    int16_t *cell_tanh = input_gate; /* free once c is updated, as in TFLite */
    k->activation.s16_tanh((size_t)count, 15 + p->cell_exponent, c, cell_tanh);
    if (!p->projection) {
        for (int32_t i = 0; i < count; ++i)
            h[i] = (int8_t)saturate(mul_fixed((int32_t)output_gate[i] * cell_tanh[i], p->hidden_scale) +
                                    p->hidden_zero_point, -128, 127);
        return;
    }
    /* TFLite's CwiseMul adds the zero point it is given, and the projection passes minus the hidden one
     * (its bias holds plus it times the row sums); kept as it is, for the same bits */
    for (int32_t i = 0; i < count; ++i)
        hidden[i] = (int8_t)saturate(mul_fixed((int32_t)output_gate[i] * cell_tanh[i], p->hidden_scale) -
                                     p->hidden_zero_point, -128, 127);
    k->s8_s32_rowdot((size_t)p->batch, (size_t)p->n_output, (size_t)p->n_cell, hidden, (size_t)p->n_cell, p->projection,
           p->projection_bias, sums, (size_t)p->n_output);
    for (int32_t i = 0; i < p->batch * p->n_output; ++i) {
        int32_t v = saturate(mul_fixed(sums[i], p->projection_scale) + p->output_zero_point, -128, 127);
        if (p->projection_clip > 0) v = saturate(v, -p->projection_clip, p->projection_clip);
        h[i] = (int8_t)v;
    }
}
