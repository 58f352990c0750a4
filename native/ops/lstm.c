/* lstm.c — UNIDIRECTIONAL_SEQUENCE_LSTM, float32 (TFLite's 24 inputs: the input, the gates' input and
 * recurrent weights, peepholes, biases, projection, the two state tensors, layer norms), time- or
 * batch-major. The state (h and c) persists across invokes as TFLite's variable tensors do: it lives in the
 * op's state, zeroed when the plan is prepared and by reset_all_variables (rl_reset_lstm), and each invoke
 * starts from where the last one stopped (f32_lstm_step.c is one step, on the plan's row-dot and activation
 * kernels, the weights read where the model holds them). Layer-normalised LSTMs (inputs 20 to 23) normalise
 * each gate. An int8 input makes it TFLite's integer LSTM (lstm_int8.c), a float32 input with int8 output
 * gate weights TFLite's hybrid LSTM (lstm_hybrid.c); other non-float inputs are refused. */
#include <string.h>

#include "lstm.h"
#include "ops.h"

typedef struct {
    rl_lstm_dims dims;
    int32_t max_time, time_major;
    rl_lstm_kernels kernels;
    float *h, *cell, *scratch, *x_step;
} rl_lstm_state;

enum { X = 0, W_XI = 1, W_XF, W_XC, W_XO, W_HI, W_HF, W_HC, W_HO, P_I, P_F, P_O, B_I, B_F, B_C, B_O, PROJ, PROJ_B,
       H_STATE, C_STATE, LN_I, LN_F, LN_C, LN_O };

static const float *weights(rl_plan *plan, const rl_op *op, int32_t i) {
    const rl_tensor *t = i < op->n_inputs ? rl_input(plan, op, i) : NULL;
    return t ? (const float *)t->data : NULL;
}

static rl_status run_lstm(rl_plan *plan, rl_op *op) {
    rl_lstm_state *st = (rl_lstm_state *)op->state;
    const rl_lstm_dims *d = &st->dims;
    const rl_lstm_weights w = {
        .input_x = weights(plan, op, W_XI), .forget_x = weights(plan, op, W_XF), .cell_x = weights(plan, op, W_XC),
        .output_x = weights(plan, op, W_XO), .input_h = weights(plan, op, W_HI), .forget_h = weights(plan, op, W_HF),
        .cell_h = weights(plan, op, W_HC), .output_h = weights(plan, op, W_HO),
        .input_peephole = weights(plan, op, P_I), .forget_peephole = weights(plan, op, P_F),
        .output_peephole = weights(plan, op, P_O), .input_bias = weights(plan, op, B_I),
        .forget_bias = weights(plan, op, B_F), .cell_bias = weights(plan, op, B_C), .output_bias = weights(plan, op, B_O),
        .projection = weights(plan, op, PROJ), .projection_bias = weights(plan, op, PROJ_B),
        .input_norm = weights(plan, op, LN_I), .forget_norm = weights(plan, op, LN_F), .cell_norm = weights(plan, op, LN_C),
        .output_norm = weights(plan, op, LN_O)};
    const float *x = (const float *)rl_input(plan, op, X)->data;
    float *y = (float *)rl_output(plan, op, 0)->data;
    const int64_t T = st->max_time, B = d->batch, I = d->n_input, O = d->n_output;
    for (int64_t t = 0; t < T; ++t) {
        /* one step over the whole batch: gather its rows (batch-major input holds a sequence per row) */
        for (int64_t b = 0; b < B; ++b)
            memcpy(st->x_step + b * I, x + (st->time_major ? (t * B + b) : (b * T + t)) * I, (size_t)I * sizeof(float));
        f32_lstm_step(&st->kernels, d, &w, st->x_step, st->h, st->cell, st->scratch);
        for (int64_t b = 0; b < B; ++b)
            memcpy(y + (st->time_major ? (t * B + b) : (b * T + t)) * O, st->h + b * O, (size_t)O * sizeof(float));
    }
    return RL_OK;
}

/* A layer-normalised LSTM (TFLite: the forget gate's coefficients are given) has one [n_cell] vector per gate,
 * none for the input gate under CIFG. */
static rl_status check_layer_norm(rl_plan *plan, const rl_op *op, int32_t n_cell) {
    const int layer_norm = op->n_inputs > LN_F && rl_input(plan, op, LN_F);
    const int cifg = !rl_input(plan, op, W_XI);
    for (int32_t i = LN_I; i <= LN_O; ++i) {
        const rl_tensor *t = i < op->n_inputs ? rl_input(plan, op, i) : NULL;
        const int wanted = layer_norm && !(i == LN_I && cifg);
        if (!t && wanted) return rl_fail(plan, RL_INVALID, "layer norm coefficients %d are missing", i);
        if (t && !wanted)
            return rl_fail(plan, RL_INVALID, "layer norm coefficients %d without the forget gate's (or with CIFG)", i);
        if (t && (t->shape.rank != 1 || t->shape.dims[0] != n_cell))
            return rl_fail(plan, RL_INVALID, "layer norm coefficients %d must be [%d]", i, n_cell);
    }
    return RL_OK;
}

/* Every weight, bias, peephole and projection the model gives has the shape TFLite checks (the step reads
 * n_cell rows of each), and an input gate is whole or absent (CIFG). */
static rl_status check_shapes(rl_plan *plan, const rl_op *op, int32_t n_input, int32_t n_cell, int32_t n_output) {
    for (int32_t i = W_XI; i <= PROJ_B; ++i) {
        const rl_tensor *t = rl_input(plan, op, i);
        if (!t) continue;
        const int32_t rows = i >= PROJ ? n_output : n_cell;
        const int32_t cols = i <= W_XO ? n_input : i <= W_HO ? n_output : i == PROJ ? n_cell : 0;
        const int ok = cols ? (t->shape.rank == 2 && t->shape.dims[0] == rows && t->shape.dims[1] == cols)
                            : (t->shape.rank == 1 && t->shape.dims[0] == rows);
        if (!ok) return rl_fail(plan, RL_INVALID, "input %d must be [%d%s%.0d]", i, rows, cols ? ", " : "", cols);
    }
    const int cifg = !rl_input(plan, op, W_XI);
    if (!cifg && (!rl_input(plan, op, W_HI) || !rl_input(plan, op, B_I)))
        return rl_fail(plan, RL_INVALID, "the input gate needs its input and recurrent weights and its bias");
    return RL_OK;
}

rl_status rl_prepare_lstm(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 24); /* most of the 24 are optional */
    if (s != RL_OK) return s;
    if (op->n_inputs < 20) return rl_fail(plan, RL_INVALID, "takes 20 to 24 inputs, has %d", op->n_inputs);
    if (rl_input(plan, op, X)->dtype == RL_INT8) return rl_prepare_lstm_int8(plan, op);
    const rl_tensor *w_xo = rl_input(plan, op, W_XO);
    if (rl_input(plan, op, X)->dtype == RL_FLOAT32 && w_xo && w_xo->dtype == RL_INT8) return rl_prepare_lstm_hybrid(plan, op);
    for (int32_t i = 0; i < op->n_inputs; ++i) {
        if (i == H_STATE || i == C_STATE) continue;
        const rl_tensor *t = rl_input(plan, op, i);
        if (t && t->dtype != RL_FLOAT32)
            return rl_fail(plan, RL_UNSUPPORTED, "input %d is %s: LSTMs are float32 or int8 (an int8 input)", i, rl_dtype_name(t->dtype));
    }
    const rl_tensor *x = rl_input(plan, op, X), *w_xf = rl_input(plan, op, W_XF), *w_hf = rl_input(plan, op, W_HF);
    rl_tensor *y = rl_output(plan, op, 0);
    if (!w_xf || !w_hf || !rl_input(plan, op, W_XC) || !rl_input(plan, op, W_XO) || !rl_input(plan, op, W_HC) ||
        !rl_input(plan, op, W_HO) || !rl_input(plan, op, B_F) || !rl_input(plan, op, B_C) || !rl_input(plan, op, B_O))
        return rl_fail(plan, RL_INVALID, "the forget, cell and output gates need their weights and biases");
    /* The output is written as float32 rows: of any other dtype its buffer has another size (float64's none). */
    if ((s = rl_expect_dtype(plan, y, "output", RL_FLOAT32)) != RL_OK) return s;
    if (x->shape.rank != 3 || w_xf->shape.rank != 2 || w_hf->shape.rank != 2)
        return rl_fail(plan, RL_INVALID, "the input must be 3-D and the weights 2-D");
    const rl_lstm_params *p = &op->params.lstm;
    if (p->activation != 0 && p->activation != 1 && p->activation != 3 && p->activation != 4)
        return rl_fail(plan, RL_UNSUPPORTED, "activation %d", p->activation);
    const int32_t T = x->shape.dims[p->time_major ? 0 : 1], B = x->shape.dims[p->time_major ? 1 : 0];
    const int32_t n_input = x->shape.dims[2], n_cell = w_xf->shape.dims[0], n_output = w_hf->shape.dims[1];
    if (w_xf->shape.dims[1] != n_input || w_hf->shape.dims[0] != n_cell)
        return rl_fail(plan, RL_INVALID, "weights [%d, %d] and [%d, %d] for %d inputs", w_xf->shape.dims[0],
                       w_xf->shape.dims[1], w_hf->shape.dims[0], w_hf->shape.dims[1], n_input);
    const rl_tensor *proj = rl_input(plan, op, PROJ);
    if (!proj && n_output != n_cell) return rl_fail(plan, RL_INVALID, "no projection, yet %d outputs for %d cells", n_output, n_cell);
    if ((s = check_shapes(plan, op, n_input, n_cell, n_output)) != RL_OK) return s;
    if ((s = check_layer_norm(plan, op, n_cell)) != RL_OK) return s;
    const int64_t gates = (int64_t)B * n_cell;
    const size_t bytes[5] = {sizeof(rl_lstm_state), sizeof(float) * (size_t)B * (size_t)n_output,
                             sizeof(float) * (size_t)gates, sizeof(float) * 5 * (size_t)gates,
                             sizeof(float) * (size_t)B * (size_t)n_input};
    void *parts[5];
    rl_lstm_state *st = (rl_lstm_state *)rl_op_state_parts(plan, op, 5, bytes, parts);
    if (!st) return RL_NO_MEMORY;
    st->h = (float *)parts[1];
    st->cell = (float *)parts[2];
    st->scratch = (float *)parts[3];
    st->x_step = (float *)parts[4];
    st->dims = (rl_lstm_dims){.batch = B, .n_input = n_input, .n_cell = n_cell, .n_output = n_output,
                              .activation = p->activation, .cell_clip = p->cell_clip, .proj_clip = p->proj_clip};
    st->max_time = T;
    st->time_major = p->time_major;
    st->kernels = rl_lstm_kernels_of(plan->kernels, 0); /* no int8 weights */
    y->shape = x->shape;
    y->shape.dims[2] = n_output;
    op->run = run_lstm;
    return RL_OK;
}

rl_status rl_eval_lstm(rl_plan *plan, rl_op *op) { return op->run ? op->run(plan, op) : run_lstm(plan, op); }

void rl_reset_lstm(rl_op *op) {
    rl_lstm_state *st = (rl_lstm_state *)op->state;
    if (!st) return; /* not prepared: nothing kept yet */
    if (rl_lstm_is_int8(op)) {
        rl_reset_lstm_int8(op);
        return;
    }
    if (rl_lstm_is_hybrid(op)) {
        rl_reset_lstm_hybrid(op);
        return;
    }
    memset(st->h, 0, sizeof(float) * (size_t)st->dims.batch * (size_t)st->dims.n_output);
    memset(st->cell, 0, sizeof(float) * (size_t)st->dims.batch * (size_t)st->dims.n_cell);
}
