/* lstm_hybrid.c — UNIDIRECTIONAL_SEQUENCE_LSTM, hybrid (dynamic-range): float32 input, output and state, int8
 * weights (gates, peepholes, projection) with one scale each and zero point 0, float32 biases and layer norm
 * coefficients, as TensorFlow's dynamic-range quantizer writes it. LiteRT's default Interpreter runs it through
 * TFLite's EvalHybrid (XNNPACK does not take the op; measured in tests/runtime/test_lstm_hybrid.py): each step
 * quantizes x and h per batch row, symmetrically or, with the options' asymmetric_quantize_inputs,
 * asymmetrically (the weights' row sums, kept here, take out the zero points). Weights with a scale per
 * channel count as zero, as in LiteRT (see expect), and activation NONE gives TFLite's o * g for the hidden
 * state (f32_qs8_lstm_hybrid_step.c, on the plan's int8 row-dot and activation kernels). h and c live in the
 * op's state across invokes, zeroed at prepare and by reset_all_variables; a batch-major sequence runs a step
 * over the whole batch, as every row of a step is computed alone (TFLite runs each row on its own: the same
 * arithmetic). */
#include <string.h>

#include "f32_qs8_lstm_hybrid.h"
#include "lstm.h"
#include "ops.h"

enum { X = 0, W_X = 1, W_H = 5, PEEPHOLE = 9, BIAS = 12, PROJ = 16, PROJ_B, H_STATE, C_STATE, LAYER_NORM };

typedef struct {
    rl_lstm_dims dims;
    rl_f32_qs8_lstm_hybrid_weights w;
    int32_t max_time, time_major, asymmetric;
    rl_lstm_kernels kernels;
    float *h, *cell;
} rl_f32_qs8_lstm_hybrid_state;

static const rl_tensor *optional_input(rl_plan *plan, const rl_op *op, int32_t i) {
    return i < op->n_inputs ? rl_input(plan, op, i) : NULL;
}

/* The bytes of a step's scratch (rl_f32_qs8_lstm_hybrid_scratch and the input step's rows) in the op's
 * arena scratch: floats and int32s first, then the int8 rows. */
static size_t scratch_bytes(const rl_lstm_dims *d) {
    const size_t B = (size_t)d->batch, C = (size_t)d->n_cell, I = (size_t)d->n_input, O = (size_t)d->n_output;
    return sizeof(float) * (5 * B * C + C + 3 * B + B * I) + sizeof(int32_t) * (3 * B + B * (C > O ? C : O)) +
           B * (I + O + C);
}

static void scratch_layout(const rl_lstm_dims *d, uint8_t *base, rl_f32_qs8_lstm_hybrid_scratch *s, float **x_step) {
    const size_t B = (size_t)d->batch, C = (size_t)d->n_cell, I = (size_t)d->n_input, O = (size_t)d->n_output;
    s->gates = (float *)base;
    s->hidden = s->gates + 4 * B * C;
    s->peephole = s->hidden + B * C;
    s->scale_x = s->peephole + C;
    s->scale_h = s->scale_x + B;
    s->scale_hidden = s->scale_h + B;
    *x_step = s->scale_hidden + B;
    s->zero_x = (int32_t *)(*x_step + B * I);
    s->zero_h = s->zero_x + B;
    s->zero_hidden = s->zero_h + B;
    s->dots = s->zero_hidden + B;
    s->q_x = (int8_t *)(s->dots + B * (C > O ? C : O));
    s->q_h = s->q_x + B * I;
    s->q_hidden = s->q_h + B * O;
}

static rl_status run_lstm_hybrid(rl_plan *plan, rl_op *op) {
    rl_f32_qs8_lstm_hybrid_state *st = (rl_f32_qs8_lstm_hybrid_state *)op->state;
    const rl_lstm_dims *d = &st->dims;
    rl_f32_qs8_lstm_hybrid_scratch s;
    float *x_step;
    scratch_layout(d, (uint8_t *)op->arena_scratch, &s, &x_step);
    const float *x = (const float *)rl_input(plan, op, X)->data;
    float *y = (float *)rl_output(plan, op, 0)->data;
    const int64_t T = st->max_time, B = d->batch, I = d->n_input, O = d->n_output;
    for (int64_t t = 0; t < T; ++t) {
        for (int64_t b = 0; b < B; ++b)
            memcpy(x_step + b * I, x + (st->time_major ? (t * B + b) : (b * T + t)) * I, (size_t)I * sizeof(float));
        f32_qs8_lstm_hybrid_step(&st->kernels, d, st->asymmetric, &st->w, x_step, st->h, st->cell, &s);
        for (int64_t b = 0; b < B; ++b)
            memcpy(y + (st->time_major ? (t * B + b) : (b * T + t)) * O, st->h + b * O, (size_t)O * sizeof(float));
    }
    return RL_OK;
}

int rl_lstm_is_hybrid(const rl_op *op) { return op->run == run_lstm_hybrid; }

void rl_reset_lstm_hybrid(rl_op *op) {
    rl_f32_qs8_lstm_hybrid_state *st = (rl_f32_qs8_lstm_hybrid_state *)op->state;
    memset(st->h, 0, sizeof(float) * (size_t)st->dims.batch * (size_t)st->dims.n_output);
    memset(st->cell, 0, sizeof(float) * (size_t)st->dims.batch * (size_t)st->dims.n_cell);
}

/* One input as a hybrid LSTM needs it: dtype, [rows] or [rows, cols], a constant of the file, and for int8
 * one scale (per tensor) and zero point 0, which *scale gets. */
static rl_status expect(rl_plan *plan, const rl_tensor *t, int32_t index, int32_t dtype, int32_t rows, int32_t cols,
                        float *scale) {
    if (t->dtype != dtype)
        return rl_fail(plan, RL_INVALID, "input %d is %s, a hybrid LSTM (float32 input, int8 weights) needs %s here",
                       index, rl_dtype_name(t->dtype), rl_dtype_name(dtype));
    const int ok = cols ? (t->shape.rank == 2 && t->shape.dims[0] == rows && t->shape.dims[1] == cols)
                        : (t->shape.rank == 1 && t->shape.dims[0] == rows);
    if (!ok) return rl_fail(plan, RL_INVALID, "input %d must be [%d%s%.0d]", index, rows, cols ? ", " : "", cols);
    if (!rl_known_data(t))
        return rl_fail(plan, RL_UNSUPPORTED, "input %d (weights or bias) must be a constant of the file", index);
    if (dtype != RL_INT8) return RL_OK;
    if (t->q_count < 1 || !(t->q_scales[0] > 0.0f))
        return rl_fail(plan, RL_INVALID, "int8 weights %d need a positive scale", index);
    if (t->q_zero_points[0] != 0)
        return rl_fail(plan, RL_INVALID, "int8 weights %d have zero point %lld, hybrid weights are symmetric", index,
                       (long long)t->q_zero_points[0]);
    /* TFLite's hybrid LSTM reads a tensor's legacy single scale, which the interpreter leaves 0 for a tensor
     * with a scale per channel: LiteRT runs such weights as if they were zero (measured), and so does rillet. */
    *scale = t->q_count == 1 ? t->q_scales[0] : 0.0f;
    return RL_OK;
}

/* The gates' weights, peepholes, biases and layer norm coefficients, and the projection, as TFLite's
 * CheckInputTensorDimensions takes them (CIFG: no input gate; peepholes all or none; layer norm for every
 * gate there is, or none), into w. */
static rl_status check_weights(rl_plan *plan, const rl_op *op, const rl_lstm_dims *d,
                               rl_f32_qs8_lstm_hybrid_weights *w) {
    const int32_t C = d->n_cell;
    const int cifg = !optional_input(plan, op, W_X);
    const int layer_norm = optional_input(plan, op, LAYER_NORM + 1) != NULL;
    const int peepholes = optional_input(plan, op, PEEPHOLE + 1) != NULL;
    static const char *const names[4] = {"input", "forget", "cell", "output"};
    rl_status s;
    for (int32_t g = 0; g < 4; ++g) {
        const rl_tensor *wx = optional_input(plan, op, W_X + g), *wh = optional_input(plan, op, W_H + g);
        const rl_tensor *bias = optional_input(plan, op, BIAS + g), *norm = optional_input(plan, op, LAYER_NORM + g);
        const int32_t peephole_slot = g == 2 ? -1 : PEEPHOLE + (g == 3 ? 2 : g);
        const rl_tensor *peephole = peephole_slot < 0 ? NULL : optional_input(plan, op, peephole_slot);
        if (g == 0 && cifg) {
            if (wh || bias || norm || peephole)
                return rl_fail(plan, RL_INVALID, "CIFG (no input gate weights) yet other input gate tensors");
            continue;
        }
        if (!wx || !wh || !bias)
            return rl_fail(plan, RL_INVALID, "the %s gate needs its input and recurrent weights and its bias", names[g]);
        if ((s = expect(plan, wx, W_X + g, RL_INT8, C, d->n_input, &w->scale_x[g])) != RL_OK ||
            (s = expect(plan, wh, W_H + g, RL_INT8, C, d->n_output, &w->scale_h[g])) != RL_OK ||
            (s = expect(plan, bias, BIAS + g, RL_FLOAT32, C, 0, NULL)) != RL_OK)
            return s;
        w->input_x[g] = (const int8_t *)rl_known_data(wx);
        w->input_h[g] = (const int8_t *)rl_known_data(wh);
        w->bias[g] = (const float *)rl_known_data(bias);
        if (!norm != !layer_norm)
            return rl_fail(plan, RL_INVALID, "layer norm coefficients %d: all gates' or none", LAYER_NORM + g);
        if (norm && (s = expect(plan, norm, LAYER_NORM + g, RL_FLOAT32, C, 0, NULL)) != RL_OK) return s;
        w->layer_norm[g] = norm ? (const float *)rl_known_data(norm) : NULL;
        if (peephole_slot < 0) continue;
        if (!peephole != !peepholes)
            return rl_fail(plan, RL_INVALID, "peephole weights %d: all or none (none for CIFG's input gate)",
                           peephole_slot);
        if (peephole && (s = expect(plan, peephole, peephole_slot, RL_INT8, C, 0, &w->scale_peephole[g])) != RL_OK)
            return s;
        w->peephole[g] = peephole ? (const int8_t *)rl_known_data(peephole) : NULL;
    }
    const rl_tensor *proj = optional_input(plan, op, PROJ), *proj_b = optional_input(plan, op, PROJ_B);
    if (!proj && proj_b) return rl_fail(plan, RL_INVALID, "a projection bias without projection weights");
    if (!proj && d->n_output != C)
        return rl_fail(plan, RL_INVALID, "no projection, yet %d outputs for %d cells", d->n_output, C);
    if (proj && (s = expect(plan, proj, PROJ, RL_INT8, d->n_output, C, &w->scale_projection)) != RL_OK) return s;
    if (proj_b && (s = expect(plan, proj_b, PROJ_B, RL_FLOAT32, d->n_output, 0, NULL)) != RL_OK) return s;
    w->projection = proj ? (const int8_t *)rl_known_data(proj) : NULL;
    w->projection_bias = proj_b ? (const float *)rl_known_data(proj_b) : NULL;
    return RL_OK;
}

static void row_sums(const int8_t *w, int32_t rows, int32_t cols, int32_t *out) {
    for (int32_t r = 0; r < rows; ++r) {
        int32_t sum = 0;
        for (int32_t k = 0; k < cols; ++k) sum += w[(int64_t)r * cols + k];
        out[r] = sum;
    }
}

rl_status rl_prepare_lstm_hybrid(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, X), *w_xo = optional_input(plan, op, W_X + 3);
    const rl_tensor *w_ho = optional_input(plan, op, W_H + 3);
    rl_tensor *y = rl_output(plan, op, 0);
    const rl_lstm_params *p = &op->params.lstm;
    if (!w_xo || !w_ho || x->shape.rank != 3 || w_xo->shape.rank != 2 || w_ho->shape.rank != 2)
        return rl_fail(plan, RL_INVALID, "the input must be 3-D and the output gate's weights 2-D");
    if (p->activation != 0 && p->activation != 1 && p->activation != 3 && p->activation != 4)
        return rl_fail(plan, RL_UNSUPPORTED, "activation %d", p->activation);
    if (p->cell_clip < 0.0f || p->proj_clip < 0.0f) return rl_fail(plan, RL_INVALID, "negative clip");
    const int32_t T = x->shape.dims[p->time_major ? 0 : 1], B = x->shape.dims[p->time_major ? 1 : 0];
    const rl_lstm_dims d = {.batch = B, .n_input = x->shape.dims[2], .n_cell = w_xo->shape.dims[0],
                            .n_output = w_ho->shape.dims[1], .activation = p->activation,
                            .cell_clip = p->cell_clip, .proj_clip = p->proj_clip};
    if (d.n_input < 1 || d.n_cell < 1 || d.n_output < 1) /* a row to quantize needs a value */
        return rl_fail(plan, RL_INVALID, "%d inputs, %d cells and %d outputs: each must be at least 1", d.n_input,
                       d.n_cell, d.n_output);
    rl_f32_qs8_lstm_hybrid_weights w;
    memset(&w, 0, sizeof w);
    rl_status s = check_weights(plan, op, &d, &w);
    if (s != RL_OK) return s;
    const rl_tensor *h = optional_input(plan, op, H_STATE), *c = optional_input(plan, op, C_STATE);
    if (!h || !c) return rl_fail(plan, RL_INVALID, "the output and cell state tensors (inputs 18, 19) are missing");
    if (h->dtype != RL_FLOAT32 || c->dtype != RL_FLOAT32 || y->dtype != RL_FLOAT32)
        return rl_fail(plan, RL_INVALID, "a hybrid LSTM needs a float32 output state, cell state and output (has %s, "
                       "%s, %s)", rl_dtype_name(h->dtype), rl_dtype_name(c->dtype), rl_dtype_name(y->dtype));
    if (rl_shape_count(&h->shape) != (int64_t)B * d.n_output || rl_shape_count(&c->shape) != (int64_t)B * d.n_cell)
        return rl_fail(plan, RL_INVALID, "the state tensors hold %lld and %lld values for %d x %d and %d x %d",
                       (long long)rl_shape_count(&h->shape), (long long)rl_shape_count(&c->shape), B, d.n_output, B,
                       d.n_cell);
    const int asymmetric = p->asymmetric_quantize_inputs != 0;
    const size_t bytes[4] = {sizeof(rl_f32_qs8_lstm_hybrid_state), sizeof(float) * (size_t)B * (size_t)d.n_output,
                             sizeof(float) * (size_t)B * (size_t)d.n_cell,
                             asymmetric ? sizeof(int32_t) * (8 * (size_t)d.n_cell + (size_t)d.n_output) : 1};
    void *parts[4];
    rl_f32_qs8_lstm_hybrid_state *st = (rl_f32_qs8_lstm_hybrid_state *)rl_op_state_parts(plan, op, 4, bytes, parts);
    if (!st) return RL_NO_MEMORY;
    st->h = (float *)parts[1];
    st->cell = (float *)parts[2];
    if (asymmetric) {
        int32_t *sums = (int32_t *)parts[3];
        for (int32_t g = 0; g < 4; ++g) {
            if (!w.input_x[g]) continue; /* CIFG */
            row_sums(w.input_x[g], d.n_cell, d.n_input, sums + 2 * g * d.n_cell);
            row_sums(w.input_h[g], d.n_cell, d.n_output, sums + (2 * g + 1) * d.n_cell);
        }
        if (w.projection) row_sums(w.projection, d.n_output, d.n_cell, sums + 8 * d.n_cell);
        w.row_sums = sums;
    }
    st->dims = d;
    st->w = w;
    st->max_time = T;
    st->time_major = p->time_major;
    st->asymmetric = asymmetric;
    int narrow = rl_lstm_narrow_weights(w.projection, (size_t)d.n_output * (size_t)d.n_cell);
    for (int32_t g = 0; g < 4; ++g)
        narrow &= rl_lstm_narrow_weights(w.input_x[g], (size_t)d.n_cell * (size_t)d.n_input) &
                  rl_lstm_narrow_weights(w.input_h[g], (size_t)d.n_cell * (size_t)d.n_output);
    st->kernels = rl_lstm_kernels_of(plan->kernels, narrow);
    rl_request_arena_scratch(op, scratch_bytes(&d));
    y->shape = x->shape;
    y->shape.dims[2] = d.n_output;
    op->run = run_lstm_hybrid;
    rl_reset_lstm_hybrid(op);
    return RL_OK;
}
