/* activation_int16.c — SOFTMAX, LOGISTIC, TANH, RELU, RELU6 and LEAKY_RELU of TFLite's 16x8 mode (int16 in and
 * out, zero points 0), on the s16 kernels; elementwise.c sends int16 inputs here. Which arithmetic LiteRT's
 * default Interpreter uses follows its Prepare: LOGISTIC and TANH take gemmlowp's fixed-point functions when the
 * input scale is 2^-12 (TANH also 2^-11), TFLite's sigmoid table otherwise; SOFTMAX always its two int16 LUTs. */
#include <math.h>

#include "ops.h"
#include "qs8_lstm.h"
#include "s16_elementwise.h"

typedef struct {
    int32_t pot;                      /* LOGISTIC / TANH on gemmlowp's Q3.12 functions */
    int32_t input_multiplier, input_shift;
    int32_t pos_multiplier, pos_shift, neg_multiplier, neg_shift, lo, hi; /* RELU family */
    rl_s16_softmax_params softmax;
} rl_s16_activation_state;

static rl_status run_activation_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_activation_state *st = (const rl_s16_activation_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    const int16_t *x = (const int16_t *)input->data;
    int16_t *y = (int16_t *)rl_output(plan, op, 0)->data;
    const int64_t n = rl_shape_count(&input->shape);
    switch (op->code) {
    case RL_OP_SOFTMAX: s16_softmax_ref(&st->softmax, op->prep.outer, (int32_t)op->prep.inner, x, y); break;
    case RL_OP_LOGISTIC:
        if (st->pot)
            for (int64_t i = 0; i < n; ++i) y[i] = rl_s16_logistic_q3(x[i]);
        else
            s16_logistic_table_ref(n, st->input_multiplier, st->input_shift, x, y);
        break;
    case RL_OP_TANH:
        if (st->pot) /* input_shift 0 or 1: the saturating doubling gemmlowp applies before its Q3.12 tanh */
            for (int64_t i = 0; i < n; ++i) {
                const int32_t v = (int32_t)x[i] * (1 << st->input_shift); /* not <<: x may be negative */
                y[i] = rl_s16_tanh((int16_t)(v < -32768 ? -32768 : (v > 32767 ? 32767 : v)), 3);
            }
        else
            s16_tanh_table_ref(n, st->input_multiplier, st->input_shift, x, y);
        break;
    default:
        s16_relu_ref(n, st->pos_multiplier, st->pos_shift, st->neg_multiplier, st->neg_shift, st->lo, st->hi, x, y);
    }
    return RL_OK;
}

static int checked_log2(float scale, int32_t *log2_rounded) {
    const float l = logf(scale) * (1.0f / logf(2.0f));
    const float r = roundf(l);
    *log2_rounded = (int32_t)r;
    return fabsf(l - r) < 1e-3f;
}

static double exp_of(double x) { return exp(x); }
static double one_over_one_plus(double x) { return 1.0 / (1.0 + x); }

/* LOGISTIC / TANH on a scale that is not their power of two: a multiplier below 2^15 that maps the input to
 * the table's 1/(3 * 4096) steps, found by doubling as TFLite does. */
static void table_multiplier(float input_scale, rl_s16_activation_state *st) {
    double multiplier = (double)input_scale * 4096.0 * 3.0;
    int32_t shift = 0;
    while (multiplier <= 32767.0 / 2.0 && shift <= 30) {
        ++shift;
        multiplier *= 2.0;
    }
    st->input_multiplier = (int32_t)multiplier;
    st->input_shift = shift;
}

static rl_status relu_family(rl_plan *plan, rl_op *op, rl_s16_activation_state *st, float si, float so) {
    st->lo = -32768;
    st->hi = 32767;
    if (op->code == RL_OP_LEAKY_RELU) {
        const float alpha = op->params.leaky_relu.alpha;
        const double alpha_real = (double)(si * alpha / so); /* float arithmetic, as TFLite's Prepare */
        if (alpha_real >= 0) {
            if (rl_quantize_multiplier(alpha_real, &st->neg_multiplier, &st->neg_shift))
                return rl_fail(plan, RL_UNSUPPORTED, "int16 LEAKY_RELU alpha rescale %g is out of range", alpha_real);
        } else { /* TFLite's QuantizeMultiplier of a negative value: a negative multiplier, down to INT32_MIN */
            int exponent = 0;
            const double fraction = frexp(alpha_real, &exponent);
            const int64_t fixed = (int64_t)round(fraction * 2147483648.0);
            if (exponent > 31 || !isfinite(alpha_real))
                return rl_fail(plan, RL_UNSUPPORTED, "int16 LEAKY_RELU alpha rescale %g is out of range", alpha_real);
            st->neg_multiplier = exponent < -31 ? 0 : (int32_t)fixed;
            st->neg_shift = exponent < -31 ? 0 : exponent;
        }
    } else {
        /* TFLite's QuantizedReluX: bounds zero_point + roundf(bound / scale) in float, clamped to int16 */
        st->lo = (int32_t)roundf(0.0f / so);
        if (op->code == RL_OP_RELU6) {
            const float hi = roundf(6.0f / so);
            st->hi = hi < 32767.0f ? (int32_t)hi : 32767;
        }
    }
    const double identity = (double)(si / so); /* float division, as TFLite's Prepare */
    if (rl_quantize_multiplier(identity, &st->pos_multiplier, &st->pos_shift) || st->pos_shift > 30)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 input/output scale ratio %g is out of range", identity);
    if (op->code != RL_OP_LEAKY_RELU) {
        st->neg_multiplier = st->pos_multiplier;
        st->neg_shift = st->pos_shift;
    }
    return RL_OK;
}

rl_status rl_prepare_activation_s16(rl_plan *plan, rl_op *op) {
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    const int code = op->code;
    if (code != RL_OP_SOFTMAX && code != RL_OP_LOGISTIC && code != RL_OP_TANH && code != RL_OP_RELU &&
        code != RL_OP_RELU6 && code != RL_OP_LEAKY_RELU)
        return rl_prepare_unary_s16(plan, op); /* unary_int16.c: ABS, NEG, SQRT, EXP, LOG, RSQRT */
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, input, "int16 input");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, output, "int16 output");
    if (s != RL_OK) return s;
    if (rl_tensor_zero_point(input, 0) != 0 || rl_tensor_zero_point(output, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 input and output need zero point 0 (have %d and %d)",
                       rl_tensor_zero_point(input, 0), rl_tensor_zero_point(output, 0));
    output->shape = input->shape;
    rl_s16_activation_state *st = (rl_s16_activation_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const float si = rl_tensor_scale(input, 0), so = rl_tensor_scale(output, 0);
    int32_t log2_in, log2_out;
    switch (code) {
    case RL_OP_SOFTMAX: {
        if (input->shape.rank < 1) return rl_fail(plan, RL_INVALID, "input must have rank 1 or more");
        if (fabsf(so - 1.0f / 32768) > 0.001f / 32768)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 SOFTMAX needs output scale 1/32768, has %g", (double)so);
        op->prep.inner = input->shape.dims[input->shape.rank - 1];
        op->prep.outer = op->prep.inner ? rl_shape_count(&input->shape) / op->prep.inner : 0;
        const double real = (double)(si * op->params.softmax.beta) / (10.0 / 65535.0);
        if (rl_quantize_multiplier(real, &st->softmax.input_multiplier, &st->softmax.input_shift) ||
            st->softmax.input_shift > 15)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 SOFTMAX input scale * beta %g is out of range", real);
        s16_lut_populate(10.0 / 65535, 32767, 2.0 / 65535, 0, exp_of, st->softmax.exp_lut);
        s16_lut_populate(1.0 / 65535, -32768, 2.0 / 65535, 0, one_over_one_plus, st->softmax.one_over_one_plus_x_lut);
        break;
    }
    case RL_OP_LOGISTIC:
    case RL_OP_TANH: {
        const int tanh_op = code == RL_OP_TANH;
        if (!checked_log2(so, &log2_out) || log2_out != -15 || (!tanh_op && so != 1.0f / 32768))
            return rl_fail(plan, RL_UNSUPPORTED, "int16 %s needs output scale 2^-15, has %g",
                           tanh_op ? "TANH" : "LOGISTIC", (double)so);
        const int pot = checked_log2(si, &log2_in);
        const int32_t shift = 12 + log2_in;
        if (pot && (shift == 0 || (tanh_op && shift == 1))) {
            st->pot = 1;
            st->input_shift = shift;
        } else {
            table_multiplier(si, st);
        }
        break;
    }
    default:
        if ((s = relu_family(plan, op, st, si, so)) != RL_OK) return s;
    }
    op->run = run_activation_s16;
    return RL_OK;
}
