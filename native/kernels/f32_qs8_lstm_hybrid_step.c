/* f32_qs8_lstm_hybrid_step.c — one step of TFLite's hybrid LSTM (lstm_eval.cc's LstmStepHybrid), which
 * LiteRT's default Interpreter runs for a float32 LSTM with int8 weights (XNNPACK does not take the op):
 * - x and the output state h are quantized to int8 a batch row at a time: symmetrically (scale max|v| / 127,
 *   values round(v * 127 / max|v|) half away from zero, clamped to +-127), or with asymmetric_quantize_inputs
 *   asymmetrically (TFLite's AsymmetricQuantizeFloats, f32_qs8_asymmetric_quantize_tflite_ref.c); an all-zero
 *   row quantizes to zeros with scale 1.
 * - each gate starts from its bias (0 with layer norm) and adds, per weight matrix, the int32 dot product of a
 *   weight row with the quantized row (minus the row's zero point times the weight row's sum) times the row's
 *   scale times the weights' scale: gate += (float)dot * (row_scale * weight_scale), a multiply then an add.
 * - peepholes add (peephole * its scale) * c; then layer norm, the activation and the cell update are the
 *   float LSTM's (f32_lstm_step.c), the output gate's peephole reading the updated cell.
 * - a projection quantizes the hidden state o * act(c) per row the same way and adds its product to the
 *   projection bias, then clips.
 * The dot products run on the plan's int8-to-int32 row-dot kernel (exact integer sums, the same on every path),
 * the logistic and tanh on its activation kernels (the scalar ones are libm's, the reference arithmetic). */
#include <math.h>
#include <string.h>

#include "f32_lstm_math.h"
#include "f32_qs8_lstm_hybrid.h"

enum { INPUT_GATE, FORGET_GATE, CELL_GATE, OUTPUT_GATE };

/* TFLite's SymmetricQuantizeFloats: the scale from the row's largest magnitude. */
static float quantize_symmetric(int32_t n, const float *x, int8_t *q) {
    float lo = x[0], hi = x[0];
    for (int32_t i = 1; i < n; ++i) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    const float range = fabsf(lo) > fabsf(hi) ? fabsf(lo) : fabsf(hi);
    if (range == 0.0f) {
        memset(q, 0, (size_t)n);
        return 1.0f;
    }
    const float inverse = 127.0f / range;
    for (int32_t i = 0; i < n; ++i) {
        /* A NaN (a NaN weight or bias reaches the state) takes -127, as x86's conversion (0x80000000) gives
         * LiteRT; converting it in C would be undefined. Every other value is within +-127 here. */
        const float v = roundf(x[i] * inverse);
        q[i] = (int8_t)(v >= -127.0f && v <= 127.0f ? (int32_t)v : (v > 127.0f ? 127 : -127));
    }
    return range / 127.0f;
}

/* Each row on its own; the asymmetric quantization on the plan's kernel (the same bytes, zero point and scale
 * as f32_qs8_asymmetric_quantize_tflite_ref on every path). */
static void quantize_rows(const rl_lstm_kernels *k, int32_t asymmetric, int32_t rows, int32_t n, const float *x,
                          int8_t *q, float *scale, int32_t *zero_point) {
    for (int32_t r = 0; r < rows; ++r) {
        zero_point[r] = 0;
        scale[r] = asymmetric ? k->quantize_asymmetric(n, x + (int64_t)r * n, q + (int64_t)r * n, &zero_point[r])
                              : quantize_symmetric(n, x + (int64_t)r * n, q + (int64_t)r * n);
    }
}

/* out[b][r] += (dot(w[r], q[b]) - zero_point[b] * row_sums[r]) * (scale[b] * w_scale): TFLite's
 * MatrixBatchVectorMultiplyAccumulate with the scaling factors and, when asymmetric, the input offsets. */
static void accumulate(const rl_lstm_kernels *k, int32_t batch, int32_t rows, int32_t cols, const int8_t *w,
                       float w_scale, const int8_t *q, const float *scale, const int32_t *zero_point,
                       const int32_t *row_sums, int32_t *dots, float *out) {
    k->s8_s32_rowdot((size_t)batch, (size_t)rows, (size_t)cols, q, (size_t)cols, w, NULL, dots, (size_t)rows);
    for (int32_t b = 0; b < batch; ++b) {
        const float row_scale = scale[b] * w_scale;
        const int32_t *dot_b = dots + (int64_t)b * rows;
        float *out_b = out + (int64_t)b * rows;
        for (int32_t r = 0; r < rows; ++r) {
            int32_t dot = dot_b[r];
            if (row_sums) dot -= row_sums[r] * zero_point[b];
            const float product = (float)dot * row_scale;
            out_b[r] += product;
        }
    }
}

static void gate(const rl_lstm_kernels *k, const rl_lstm_dims *d, const rl_f32_qs8_lstm_hybrid_weights *w,
                 const rl_f32_qs8_lstm_hybrid_scratch *s, int32_t g, const float *cell, int32_t activation,
                 float *out) {
    const int32_t B = d->batch, C = d->n_cell;
    const int32_t *sums_x = w->row_sums ? w->row_sums + (int64_t)g * 2 * C : NULL, *sums_h = sums_x ? sums_x + C : NULL;
    for (int32_t b = 0; b < B; ++b) {
        if (w->layer_norm[g]) memset(out + (int64_t)b * C, 0, sizeof(float) * (size_t)C);
        else memcpy(out + (int64_t)b * C, w->bias[g], sizeof(float) * (size_t)C);
    }
    accumulate(k, B, C, d->n_input, w->input_x[g], w->scale_x[g], s->q_x, s->scale_x, s->zero_x, sums_x, s->dots, out);
    accumulate(k, B, C, d->n_output, w->input_h[g], w->scale_h[g], s->q_h, s->scale_h, s->zero_h, sums_h, s->dots,
               out);
    if (w->peephole[g]) {
        for (int32_t c = 0; c < C; ++c) s->peephole[c] = (float)w->peephole[g][c] * w->scale_peephole[g];
        for (int64_t i = 0; i < (int64_t)B * C; ++i) out[i] += s->peephole[i % C] * cell[i];
    }
    if (w->layer_norm[g])
        for (int32_t b = 0; b < B; ++b) rl_lstm_layer_norm(C, w->layer_norm[g], w->bias[g], out + (int64_t)b * C);
    rl_lstm_activate_gate(k, activation, (int64_t)B * C, out);
}

void f32_qs8_lstm_hybrid_step(const rl_lstm_kernels *k, const rl_lstm_dims *d, int32_t asymmetric,
                              const rl_f32_qs8_lstm_hybrid_weights *w, const float *x, float *h, float *cell,
                              const rl_f32_qs8_lstm_hybrid_scratch *s) {
    const int32_t B = d->batch, C = d->n_cell, O = d->n_output;
    const int64_t n = (int64_t)B * C;
    float *ig = s->gates, *fg = ig + n, *cg = fg + n, *og = cg + n;
    quantize_rows(k, asymmetric, B, d->n_input, x, s->q_x, s->scale_x, s->zero_x);
    quantize_rows(k, asymmetric, B, O, h, s->q_h, s->scale_h, s->zero_h);
    const int cifg = w->input_x[INPUT_GATE] == NULL;
    if (!cifg) gate(k, d, w, s, INPUT_GATE, cell, 6, ig);
    gate(k, d, w, s, FORGET_GATE, cell, 6, fg);
    gate(k, d, w, s, CELL_GATE, cell, d->activation, cg);
    for (int64_t i = 0; i < n; ++i) {
        float c = fg[i] * cell[i];
        c += cg[i] * (cifg ? 1.0f - fg[i] : ig[i]);
        if (d->cell_clip > 0.0f) c = c < -d->cell_clip ? -d->cell_clip : (c > d->cell_clip ? d->cell_clip : c);
        cell[i] = c;
    }
    gate(k, d, w, s, OUTPUT_GATE, cell, 6, og);
    /* TFLite writes act(c) into the cell gate's buffer and multiplies o by that buffer; NONE writes nothing
     * there, so its hidden state is o * g (measured against LiteRT) */
    for (int64_t i = 0; i < n; ++i) s->hidden[i] = d->activation ? cell[i] : cg[i];
    if (d->activation) rl_lstm_activate_gate(k, d->activation, n, s->hidden);
    for (int64_t i = 0; i < n; ++i) s->hidden[i] = og[i] * s->hidden[i];
    if (!w->projection) {
        memcpy(h, s->hidden, sizeof(float) * (size_t)n);
        return;
    }
    for (int32_t b = 0; b < B; ++b)
        for (int32_t o = 0; o < O; ++o) h[(int64_t)b * O + o] = w->projection_bias ? w->projection_bias[o] : 0.0f;
    quantize_rows(k, asymmetric, B, C, s->hidden, s->q_hidden, s->scale_hidden, s->zero_hidden);
    accumulate(k, B, O, C, w->projection, w->scale_projection, s->q_hidden, s->scale_hidden, s->zero_hidden,
               w->row_sums ? w->row_sums + 8 * (int64_t)C : NULL, s->dots, h);
    if (d->proj_clip > 0.0f)
        for (int64_t i = 0; i < (int64_t)B * O; ++i)
            h[i] = h[i] < -d->proj_clip ? -d->proj_clip : (h[i] > d->proj_clip ? d->proj_clip : h[i]);
}
