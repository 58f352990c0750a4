/* lstm_int8.c — UNIDIRECTIONAL_SEQUENCE_LSTM, int8 (TFLite's integer LSTM, unidirectional_sequence_lstm.cc
 * with an int8 input: int8 input, output and output state, int8 per-tensor weights, int32 biases, int16 cell
 * state, peepholes and layer norm coefficients, and the five intermediates whose scales TFLite's quantizer
 * wrote for the gates and the hidden state). Prepare computes what TFLite's Prepare does
 * (PopulateQuantizedLstmParams8x8_16 and the zero points times the weights' row sums folded into the biases),
 * in the same float and double arithmetic, so the multipliers are the same bits; each step is
 * qs8_lstm_step, on the plan's int8-to-int32 row-dot and int16 activation kernels (the weights read where the
 * model holds them). The output state starts at its zero point and the cell at 0 (TFLite's variable tensors
 * reset), lives in the op's state across invokes, and is reset by reset_all_variables. Batch-major sequences
 * are run a time step at a time over the whole batch: every row of a step is independent, so this gives the
 * bits of TFLite's row-by-row loop. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lstm.h"
#include "ops.h"
#include "qs8_lstm.h"

enum { X = 0, W_X = 1, W_H = 5, PEEPHOLE = 9, BIAS = 12, PROJ = 16, PROJ_B, H_STATE, C_STATE, LAYER_NORM };

typedef struct {
    rl_qs8_lstm_params p;
    int32_t max_time, time_major;
    int8_t h_zero_point;
    int8_t *h;
    int16_t *c;
    int32_t *biases; /* 8 gate biases of n_cell and the projection's n_output, pointed to by p */
    rl_lstm_kernels kernels;
} rl_s8_lstm_state;

RL_STATIC_ASSERT(sizeof(rl_s8_lstm_state) <= 640, "rl_s8_lstm_state is a small struct");

static const rl_tensor *optional_input(rl_plan *plan, const rl_op *op, int32_t i) {
    return i < op->n_inputs ? rl_input(plan, op, i) : NULL;
}

/* A tensor's one scale, or an error naming the input (index -1: the output). */
static rl_status scale_of(rl_plan *plan, const rl_tensor *t, int32_t index, float *scale) {
    char what[16]; /* the zero point too: a hostile one past its type overflows the kernel's int arithmetic */
    snprintf(what, sizeof what, index < 0 ? "output" : "input %d", index);
    const rl_status s = rl_expect_per_tensor_quantization(plan, t, what);
    if (s != RL_OK) return s;
    *scale = t->q_scales[0];
    return RL_OK;
}

static rl_status fixed(rl_plan *plan, double m, const char *what, rl_fixed_multiplier *out) {
    if (rl_quantize_multiplier(m, &out->multiplier, &out->shift))
        return rl_fail(plan, RL_UNSUPPORTED, "the %s scale %g is not a representable multiplier", what, m);
    return RL_OK;
}

/* What each input must be, as TFLite checks it: dtype, rank-1 length or [rows, cols]. */
static rl_status expect(rl_plan *plan, const rl_tensor *t, int32_t index, int32_t dtype, int32_t rows, int32_t cols) {
    if (t->dtype != dtype)
        return rl_fail(plan, RL_INVALID, "input %d is %s, an int8 LSTM needs %s", index, rl_dtype_name(t->dtype),
                       rl_dtype_name(dtype));
    const int ok = cols ? (t->shape.rank == 2 && t->shape.dims[0] == rows && t->shape.dims[1] == cols)
                        : (t->shape.rank == 1 && t->shape.dims[0] == rows);
    if (!ok) return rl_fail(plan, RL_INVALID, "input %d must be [%d%s%.0d]", index, rows, cols ? ", " : "", cols);
    if (index != H_STATE && index != C_STATE && index != X && !rl_known_data(t))
        return rl_fail(plan, RL_UNSUPPORTED, "input %d (weights or bias) must be a constant of the file", index);
    return RL_OK;
}

/* bias (or 0) + zero_point * the weights' row sums: TFLite's PrecomputeZeroPointTimesWeightWithBias. */
static void fold_zero_point(const int8_t *w, const int32_t *bias, int32_t zero_point, int32_t rows, int32_t cols,
                            int32_t *out) {
    for (int32_t r = 0; r < rows; ++r) {
        int32_t sum = 0;
        for (int32_t k = 0; k < cols; ++k) sum += w[r * cols + k];
        out[r] = (int32_t)((uint32_t)(bias ? bias[r] : 0) + (uint32_t)sum * (uint32_t)zero_point);
    }
}

static rl_status run_lstm_int8(rl_plan *plan, rl_op *op) {
    rl_s8_lstm_state *st = (rl_s8_lstm_state *)op->state;
    const rl_qs8_lstm_params *p = &st->p;
    const int8_t *x = (const int8_t *)rl_input(plan, op, X)->data;
    int8_t *y = (int8_t *)rl_output(plan, op, 0)->data;
    const int64_t T = st->max_time, B = p->batch, I = p->n_input, O = p->n_output;
    int32_t *sums = (int32_t *)op->arena_scratch;
    int16_t *gates = (int16_t *)(sums + B * (p->n_cell > O ? p->n_cell : O));
    int8_t *hidden = (int8_t *)(gates + 4 * B * p->n_cell), *x_step = hidden + B * p->n_cell;
    for (int64_t t = 0; t < T; ++t) {
        for (int64_t b = 0; b < B; ++b)
            memcpy(x_step + b * I, x + (st->time_major ? (t * B + b) : (b * T + t)) * I, (size_t)I);
        qs8_lstm_step(&st->kernels, p, x_step, st->h, st->c, gates, hidden, sums);
        for (int64_t b = 0; b < B; ++b)
            memcpy(y + (st->time_major ? (t * B + b) : (b * T + t)) * O, st->h + b * O, (size_t)O);
    }
    return RL_OK;
}

int rl_lstm_is_int8(const rl_op *op) { return op->run == run_lstm_int8; }

void rl_reset_lstm_int8(rl_op *op) {
    rl_s8_lstm_state *st = (rl_s8_lstm_state *)op->state;
    memset(st->h, st->h_zero_point, (size_t)st->p.batch * (size_t)st->p.n_output);
    memset(st->c, 0, sizeof(int16_t) * (size_t)st->p.batch * (size_t)st->p.n_cell);
}

/* Which of TFLite's variants the inputs make (CIFG, peepholes, projection, layer norm), checked as its
 * CheckInputTensorDimensions does, with a message naming what does not fit. */
static rl_status check_inputs(rl_plan *plan, const rl_op *op, int32_t n_input, int32_t n_cell, int32_t n_output) {
    const int cifg = !optional_input(plan, op, W_X);
    const int layer_norm = op->n_inputs == 24 && optional_input(plan, op, LAYER_NORM + 1);
    rl_status s;
    for (int32_t g = 0; g < 4; ++g) {
        const rl_tensor *wx = optional_input(plan, op, W_X + g), *wh = optional_input(plan, op, W_H + g);
        const rl_tensor *bias = optional_input(plan, op, BIAS + g), *norm = optional_input(plan, op, LAYER_NORM + g);
        if (g == 0 && cifg) {
            if (wh || bias) return rl_fail(plan, RL_INVALID, "CIFG (no input gate weights) yet an input gate's recurrent weights or bias");
            if (norm) return rl_fail(plan, RL_INVALID, "CIFG with input gate layer norm coefficients");
            continue;
        }
        static const char *const names[4] = {"input", "forget", "cell", "output"};
        if (!wx || !wh || !bias)
            return rl_fail(plan, RL_INVALID, "the %s gate needs its input and recurrent weights and its bias", names[g]);
        if ((s = expect(plan, wx, W_X + g, RL_INT8, n_cell, n_input)) != RL_OK ||
            (s = expect(plan, wh, W_H + g, RL_INT8, n_cell, n_output)) != RL_OK ||
            (s = expect(plan, bias, BIAS + g, RL_INT32, n_cell, 0)) != RL_OK)
            return s;
        if (layer_norm && !norm) return rl_fail(plan, RL_INVALID, "layer norm coefficients %d are missing", LAYER_NORM + g);
        if (norm && (s = expect(plan, norm, LAYER_NORM + g, RL_INT16, n_cell, 0)) != RL_OK) return s;
    }
    const int peepholes = optional_input(plan, op, PEEPHOLE + 1) != NULL;
    for (int32_t k = 0; k < 3; ++k) {
        const rl_tensor *w = optional_input(plan, op, PEEPHOLE + k);
        const int wanted = peepholes && !(k == 0 && cifg);
        if (!w != !wanted) return rl_fail(plan, RL_INVALID, "peephole weights %d: all or none (none for CIFG's input gate)", PEEPHOLE + k);
        if (w && (s = expect(plan, w, PEEPHOLE + k, RL_INT16, n_cell, 0)) != RL_OK) return s;
    }

    if (peepholes && n_output > n_cell) /* TFLite's integer peephole walks n_output values a row: past the cells */
        return rl_fail(plan, RL_UNSUPPORTED, "int8 peepholes with a projection to %d outputs from %d cells (more outputs "
                       "than cells)", n_output, n_cell);
    const rl_tensor *proj = optional_input(plan, op, PROJ), *proj_b = optional_input(plan, op, PROJ_B);
    if (!proj && proj_b) return rl_fail(plan, RL_INVALID, "a projection bias without projection weights");
    if (!proj && n_output != n_cell) return rl_fail(plan, RL_INVALID, "no projection, yet %d outputs for %d cells", n_output, n_cell);
    if (proj && (s = expect(plan, proj, PROJ, RL_INT8, n_output, n_cell)) != RL_OK) return s;
    if (proj_b && (s = expect(plan, proj_b, PROJ_B, RL_INT32, n_output, 0)) != RL_OK) return s;
    return RL_OK;
}

/* The gates' and the hidden state's intermediates: five, quantized (the gates' only matter with layer norm:
 * without it TFLite takes Q3.12 for each). */
static rl_status intermediate_scales(rl_plan *plan, const rl_op *op, int layer_norm, float *scale, int32_t *zero_point) {
    const rl_lstm_params *lp = &op->params.lstm;
    if (lp->n_intermediates != 5)
        return rl_fail(plan, RL_INVALID, "an int8 LSTM needs 5 intermediate tensors (the gates' and the hidden "
                       "state's quantization), the file gives %d", lp->n_intermediates);
    for (int32_t k = 0; k < 5; ++k) {
        const int used = k == 4 || layer_norm;
        if (used && !(lp->intermediate_scale[k] > 0.0f))
            return rl_fail(plan, RL_INVALID, "intermediate tensor %d has no quantization", k);
        scale[k] = used ? lp->intermediate_scale[k] : 1.0f / 4096.0f;
        zero_point[k] = used ? lp->intermediate_zero_point[k] : 0;
        /* the gates' (int16) and the hidden state's (int8) zero points, added in int arithmetic */
        const int32_t bound = k == 4 ? 128 : 32768;
        if (zero_point[k] < -bound || zero_point[k] >= bound)
            return rl_fail(plan, RL_INVALID, "intermediate tensor %d has zero point %d, outside %s's range", k,
                           zero_point[k], k == 4 ? "int8" : "int16");
    }
    return RL_OK;
}

/* TFLite's CheckedLog2: the cell state's scale must be a power of two. */
static rl_status cell_exponent_of(rl_plan *plan, float scale, int32_t *exponent) {
    const float log2_scale = logf(scale) * (1.0f / logf(2.0f));
    const float rounded = roundf(log2_scale);
    if (!(fabsf(log2_scale - rounded) < 1e-3f))
        return rl_fail(plan, RL_UNSUPPORTED, "the cell state's scale %g is not a power of two", scale);
    *exponent = (int32_t)rounded;
    if (*exponent < -15 || *exponent > -9) /* TFLite's tanh of the cell takes 0 to 6 integer bits */
        return rl_fail(plan, RL_UNSUPPORTED, "the cell state's scale 2^%d is outside 2^-15 to 2^-9", *exponent);
    return RL_OK;
}

rl_status rl_prepare_lstm_int8(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, X), *w_xo = rl_input(plan, op, W_X + 3), *w_ho = rl_input(plan, op, W_H + 3);
    rl_tensor *y = rl_output(plan, op, 0);
    const rl_lstm_params *lp = &op->params.lstm;
    if (!w_xo || !w_ho || x->shape.rank != 3 || w_xo->shape.rank != 2 || w_ho->shape.rank != 2)
        return rl_fail(plan, RL_INVALID, "the input must be 3-D and the output gate's weights 2-D");
    const int32_t T = x->shape.dims[lp->time_major ? 0 : 1], B = x->shape.dims[lp->time_major ? 1 : 0];
    const int32_t n_input = x->shape.dims[2], n_cell = w_xo->shape.dims[0], n_output = w_ho->shape.dims[1];
    rl_status s = check_inputs(plan, op, n_input, n_cell, n_output);
    if (s != RL_OK) return s;
    const rl_tensor *h = optional_input(plan, op, H_STATE), *c = optional_input(plan, op, C_STATE);
    if (!h || !c) return rl_fail(plan, RL_INVALID, "the output and cell state tensors (inputs 18, 19) are missing");
    if (h->dtype != RL_INT8 || c->dtype != RL_INT16 || y->dtype != RL_INT8)
        return rl_fail(plan, RL_INVALID, "an int8 LSTM needs an int8 output state, an int16 cell state and an int8 "
                       "output (has %s, %s, %s)", rl_dtype_name(h->dtype), rl_dtype_name(c->dtype), rl_dtype_name(y->dtype));
    if (rl_shape_count(&h->shape) != (int64_t)B * n_output || rl_shape_count(&c->shape) != (int64_t)B * n_cell)
        return rl_fail(plan, RL_INVALID, "the state tensors hold %lld and %lld values for %d x %d and %d x %d",
                       (long long)rl_shape_count(&h->shape), (long long)rl_shape_count(&c->shape), B, n_output, B, n_cell);
    if (lp->cell_clip < 0.0f || lp->proj_clip < 0.0f) return rl_fail(plan, RL_INVALID, "negative clip");
    const int layer_norm = op->n_inputs == 24 && optional_input(plan, op, LAYER_NORM + 1);
    float inter[5], s_x, s_h, s_c, s_y, s_w;
    int32_t inter_zp[5];
    if ((s = intermediate_scales(plan, op, layer_norm, inter, inter_zp)) != RL_OK ||
        (s = scale_of(plan, x, X, &s_x)) != RL_OK || (s = scale_of(plan, h, H_STATE, &s_h)) != RL_OK ||
        (s = scale_of(plan, c, C_STATE, &s_c)) != RL_OK || (s = scale_of(plan, y, -1, &s_y)) != RL_OK)
        return s;
    const size_t bytes[4] = {sizeof(rl_s8_lstm_state), (size_t)B * (size_t)n_output,
                             sizeof(int16_t) * (size_t)B * (size_t)n_cell,
                             sizeof(int32_t) * (8 * (size_t)n_cell + (size_t)n_output)};
    void *parts[4];
    rl_s8_lstm_state *st = (rl_s8_lstm_state *)rl_op_state_parts(plan, op, 4, bytes, parts);
    if (!st) return RL_NO_MEMORY;
    st->h = (int8_t *)parts[1];
    st->c = (int16_t *)parts[2];
    st->biases = (int32_t *)parts[3];
    rl_qs8_lstm_params *p = &st->p;
    *p = (rl_qs8_lstm_params){.batch = B, .n_input = n_input, .n_cell = n_cell, .n_output = n_output,
                              .peephole_per_row = !lp->time_major};
    if ((s = cell_exponent_of(plan, s_c, &p->cell_exponent)) != RL_OK) return s;
    const int32_t x_zp = (int32_t)x->q_zero_points[0], h_zp = (int32_t)h->q_zero_points[0];
    for (int32_t g = 0; g < 4; ++g) {
        const rl_tensor *wx = optional_input(plan, op, W_X + g);
        if (!wx) continue; /* CIFG's input gate */
        const rl_tensor *wh = rl_input(plan, op, W_H + g), *bias = rl_input(plan, op, BIAS + g);
        const rl_tensor *norm = layer_norm ? rl_input(plan, op, LAYER_NORM + g) : NULL;
        const int32_t *bias_data = (const int32_t *)rl_known_data(bias);
        float sw;
        if ((s = scale_of(plan, wx, W_X + g, &sw)) != RL_OK ||
            (s = fixed(plan, sw * s_x / inter[g], "input-to-gate", &p->input_scale[g])) != RL_OK ||
            (s = scale_of(plan, wh, W_H + g, &sw)) != RL_OK ||
            (s = fixed(plan, sw * s_h / inter[g], "recurrent-to-gate", &p->recurrent_scale[g])) != RL_OK)
            return s;
        p->input_weights[g] = (const int8_t *)rl_known_data(wx);
        p->recurrent_weights[g] = (const int8_t *)rl_known_data(wh);
        int32_t *in_bias = st->biases + 2 * g * n_cell, *rec_bias = in_bias + n_cell;
        /* with layer norm the gate bias is added after the normalization, not to the sums */
        fold_zero_point(p->input_weights[g], norm ? NULL : bias_data, -x_zp, n_cell, n_input, in_bias);
        fold_zero_point(p->recurrent_weights[g], NULL, -h_zp, n_cell, n_output, rec_bias);
        p->input_bias[g] = in_bias;
        p->recurrent_bias[g] = rec_bias;
        const rl_tensor *peephole = g == RL_LSTM_CELL_GATE ? NULL : optional_input(plan, op, PEEPHOLE + (g == 3 ? 2 : g));
        if (peephole) {
            const double cell_scale = ldexp(1.0, p->cell_exponent);
            if ((s = scale_of(plan, peephole, PEEPHOLE + (g == 3 ? 2 : g), &sw)) != RL_OK ||
                (s = fixed(plan, (float)(cell_scale * sw / inter[g]), "peephole", &p->peephole_scale[g])) != RL_OK)
                return s;
            p->peephole[g] = (const int16_t *)rl_known_data(peephole);
        }
        float ln = 1.0f;
        if (norm) {
            if ((s = scale_of(plan, norm, LAYER_NORM + g, &ln)) != RL_OK) return s;
            p->layer_norm[g] = (const int16_t *)rl_known_data(norm);
            p->layer_norm_bias[g] = bias_data;
        }
        if ((s = fixed(plan, ln, "layer norm", &p->layer_norm_scale[g])) != RL_OK) return s;
        const int32_t guard = (int32_t)(10000.0f * ln);
        p->variance_guard[g] = guard > 1 ? guard : 1;
    }
    /* o * tanh(c) is Q0.15 times Q0.15: 2^-30 over the hidden state's scale */
    if ((s = fixed(plan, (float)(ldexp(1.0, -15) / inter[4] * ldexp(1.0, -15)), "hidden", &p->hidden_scale)) != RL_OK)
        return s;
    p->hidden_zero_point = inter_zp[4];
    p->output_zero_point = h_zp;
    const rl_tensor *proj = optional_input(plan, op, PROJ);
    if (proj) {
        const rl_tensor *proj_b = optional_input(plan, op, PROJ_B);
        if ((s = scale_of(plan, proj, PROJ, &s_w)) != RL_OK ||
            (s = fixed(plan, s_w * inter[4] / s_h, "projection", &p->projection_scale)) != RL_OK)
            return s;
        p->projection = (const int8_t *)rl_known_data(proj);
        int32_t *bias = st->biases + 8 * n_cell;
        fold_zero_point(p->projection, proj_b ? (const int32_t *)rl_known_data(proj_b) : NULL, inter_zp[4], n_output,
                        n_cell, bias);
        p->projection_bias = bias;
    }
    if (lp->cell_clip > 0.0f) {
        const float v = lp->cell_clip / s_c;
        p->cell_clip = (int16_t)(v < -32768.0f ? -32768.0f : (v > 32767.0f ? 32767.0f : v));
    }
    if (lp->proj_clip > 0.0f) {
        const float v = lp->proj_clip / s_y;
        p->projection_clip = (int8_t)(v < -128.0f ? -128.0f : (v > 127.0f ? 127.0f : v));
    }
    st->max_time = T;
    st->time_major = lp->time_major;
    st->h_zero_point = (int8_t)h_zp;
    int narrow = rl_lstm_narrow_weights(p->projection, (size_t)n_output * (size_t)n_cell);
    for (int32_t g = 0; g < 4; ++g)
        narrow &= rl_lstm_narrow_weights(p->input_weights[g], (size_t)n_cell * (size_t)n_input) &
                  rl_lstm_narrow_weights(p->recurrent_weights[g], (size_t)n_cell * (size_t)n_output);
    st->kernels = rl_lstm_kernels_of(plan->kernels, narrow);
    const size_t widest = (size_t)(n_cell > n_output ? n_cell : n_output);
    rl_request_arena_scratch(op, sizeof(int32_t) * (size_t)B * widest +
                                     sizeof(int16_t) * 4 * (size_t)B * (size_t)n_cell + (size_t)B * (size_t)n_cell +
                                     (size_t)B * (size_t)n_input);
    y->shape = x->shape;
    y->shape.dims[2] = n_output;
    op->run = run_lstm_int8;
    rl_reset_lstm_int8(op);
    return RL_OK;
}
