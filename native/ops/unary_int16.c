/* unary_int16.c — ABS, NEG, SQRT, EXP, LOG, RSQRT and GELU of TFLite's 16x8 mode (int16 in and out, zero points
 * 0): EXP, LOG, RSQRT and GELU look their function up in a 513-entry table built at prepare as TFLite builds it
 * (in float, from the same float functions), the others on s16_unary_ref.c. activation_int16.c and
 * unary_math_int8.c send int16 here. SQRT and RSQRT of a negative input fail the invoke, as in LiteRT. */
#include <math.h>

#include "ops.h"
#include "s16_elementwise.h"

/* C99's math.h has no M_ constants: sqrt(1/2) and 2/sqrt(pi) as TFLite's M_SQRT1_2 and M_2_SQRTPI (doubles). */
#define RL_SQRT1_2 0.70710678118654752440
#define RL_2_SQRTPI 1.12837916709551257390

typedef struct {
    int32_t rescale, multiplier, shift; /* ABS */
    float input_scale, output_scale;    /* SQRT */
    float output_min;                   /* LOG of a value <= 0 */
    int16_t lut[RL_S16_LUT_SIZE];
} rl_s16_unary_state;

static rl_status run_unary_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_unary_state *st = (const rl_s16_unary_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    const int16_t *x = (const int16_t *)input->data;
    int16_t *y = (int16_t *)rl_output(plan, op, 0)->data;
    const int64_t n = rl_shape_count(&input->shape);
    switch (op->code) {
    case RL_OP_ABS: s16_abs_ref(n, st->rescale, st->multiplier, st->shift, x, y); break;
    case RL_OP_NEG: s16_neg_ref(n, x, y); break;
    case RL_OP_SQRT: {
        const int64_t bad = s16_sqrt_ref(n, st->input_scale, st->output_scale, x, y);
        if (bad >= 0) return rl_fail(plan, RL_INVALID, "SQRT of a negative value (element %lld)", (long long)bad);
        break;
    }
    case RL_OP_RSQRT:
        for (int64_t i = 0; i < n; ++i)
            if (x[i] < 0) return rl_fail(plan, RL_INVALID, "RSQRT of a negative value (element %lld)", (long long)i);
        /* fall through */
    default: plan->kernels->s16_velementwise.vlut((size_t)n, st->lut, x, y);
    }
    return RL_OK;
}

static float exp_f32(float v, const void *unused) {
    (void)unused;
    return expf(v);
}

static float log_f32(float v, const void *output_min) { return v <= 0.0f ? *(const float *)output_min : logf(v); }

static float rsqrt_f32(float v, const void *output_scale) {
    return v <= 0.0f ? 32767.0f * *(const float *)output_scale : 1.0f / sqrtf(v);
}

/* TFLite's GeluTransform and GeluTransformApproximate, float for float. */
static float gelu_f32(float v, const void *unused) {
    (void)unused;
    return 0.5f * v * erfcf(v * (float)-RL_SQRT1_2);
}

static float gelu_tanh_f32(float v, const void *unused) {
    (void)unused;
    const float sqrt_2_over_pi = (float)(RL_2_SQRTPI * RL_SQRT1_2);
    const float cube = 0.044715f * v * v * v;
    return 0.5f * v * (1.0f + tanhf(sqrt_2_over_pi * (v + cube)));
}

rl_status rl_prepare_unary_s16(rl_plan *plan, rl_op *op) {
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, input, "int16 input");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, output, "int16 output");
    if (s != RL_OK) return s;
    if (rl_tensor_zero_point(input, 0) != 0 || rl_tensor_zero_point(output, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 input and output need zero point 0 (have %d and %d)",
                       rl_tensor_zero_point(input, 0), rl_tensor_zero_point(output, 0));
    output->shape = input->shape;
    rl_s16_unary_state *st = (rl_s16_unary_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const float si = rl_tensor_scale(input, 0), so = rl_tensor_scale(output, 0);
    st->input_scale = si;
    st->output_scale = so;
    switch (op->code) {
    case RL_OP_ABS:
        st->rescale = si != so;
        if (st->rescale && (rl_quantize_multiplier((double)(si / so), &st->multiplier, &st->shift) || st->shift > 30))
            return rl_fail(plan, RL_UNSUPPORTED, "int16 ABS input/output scale ratio %g is out of range",
                           (double)(si / so));
        break;
    case RL_OP_NEG:
    case RL_OP_SQRT: break;
    case RL_OP_EXP: s16_lut_populate_f32(si, so, exp_f32, NULL, st->lut); break;
    case RL_OP_LOG:
        st->output_min = -32768.0f * so;
        s16_lut_populate_f32(si, so, log_f32, &st->output_min, st->lut);
        break;
    case RL_OP_RSQRT: s16_lut_populate_f32(si, so, rsqrt_f32, &st->output_scale, st->lut); break;
    case RL_OP_GELU:
        s16_lut_populate_f32(si, so, op->params.gelu.approximate ? gelu_tanh_f32 : gelu_f32, NULL, st->lut);
        break;
    default: return rl_fail(plan, RL_UNSUPPORTED, "no int16 kernel for this op (LiteRT has none either)");
    }
    op->run = run_unary_s16;
    return RL_OK;
}
