/* activation_int8.c — int8 RELU, RELU6, LEAKY_RELU, LOGISTIC, TANH, HARD_SWISH as 256-entry tables.
 *
 * An int8 -> int8 function has 256 inputs, so prepare evaluates it once per input value with exactly the
 * arithmetic LiteRT's default Interpreter uses for that op, and eval only looks the results up:
 * - RELU, RELU6 (XNNPACK does not take them on int8): TFLite's builtin ReluX, the input rescaled with
 *   MultiplyByQuantizedMultiplier (double rounding) and clamped to TFLite's quantized activation range.
 * - LEAKY_RELU: XNNPACK's qs8-vlrelu (8-bit fraction multipliers, ties toward +infinity) where XNNPACK
 *   takes the scales; TFLite's builtin (two quantized multipliers, double rounding) elsewhere.
 * - LOGISTIC, TANH: a float table as XNNPACK builds it (dequantize, the function in float, divide by the
 *   output scale, round to nearest even); TFLite's optimized kernel builds the same table.
 * - HARD_SWISH (not taken by XNNPACK): TFLite's int16 fixed-point reference arithmetic.
 * SOFTMAX (not taken by XNNPACK on int8) is TFLite's optimized x86 kernel: a float table of exponentials
 * (s8_softmax_ref.c). LOG_SOFTMAX is TFLite's optimized kernel too, from the same table
 * (s8_log_softmax_ref.c): LiteRT's default Interpreter runs it, not the reference integer kernel.
 */
#include <math.h>

#include "bands.h"
#include "conv_gemm.h" /* rl_parallelize_rows, RL_ELEMENT_WORK */
#include "ops.h"

static int8_t saturate_s8(int32_t v) { return (int8_t)rl_clamp_i32(v, -128, 127); }

static rl_status relu_table(rl_plan *plan, const rl_op *op, const rl_tensor *in, const rl_tensor *out, int8_t *table) {
    int32_t multiplier, shift, lo, hi;
    if (rl_quantize_multiplier((double)rl_tensor_scale(in, 0) / (double)rl_tensor_scale(out, 0), &multiplier, &shift))
        return rl_fail(plan, RL_INVALID, "input to output scale ratio is out of range");
    rl_status s = rl_quantized_activation_range(plan, op->code == RL_OP_RELU ? RL_ACT_RELU : RL_ACT_RELU6, out, &lo, &hi);
    if (s != RL_OK) return s;
    const int32_t zi = rl_tensor_zero_point(in, 0), zo = rl_tensor_zero_point(out, 0);
    for (int32_t x = -128; x < 128; ++x)
        table[(uint8_t)x] = (int8_t)rl_clamp_i32(rl_mul_by_quantized_multiplier(x - zi, multiplier, shift) + zo, lo, hi);
    return RL_OK;
}

static rl_status leaky_relu_table(rl_plan *plan, float alpha, const rl_tensor *in, const rl_tensor *out, int8_t *table) {
    const int32_t zi = rl_tensor_zero_point(in, 0), zo = rl_tensor_zero_point(out, 0);
    const float ratio = rl_tensor_scale(in, 0) / rl_tensor_scale(out, 0), negative_ratio = ratio * alpha;
    /* XNNPACK's qs8 leaky ReLU takes positive ratios in [2^-8, 2^7] and negative ones of magnitude
     * [2^-8, 2^7]; the delegate passes other scales to TFLite's builtin kernel. */
    if (ratio >= 0x1.0p-8f && ratio <= 0x1.0p+7f && fabsf(negative_ratio) >= 0x1.0p-8f && negative_ratio <= 0x1.0p+7f &&
        negative_ratio >= -0x1.FFFC00p+6f) {
        const int32_t positive_multiplier = (int32_t)lrintf(-256.0f * ratio);
        const int32_t negative_multiplier = (int32_t)lrintf(-256.0f * negative_ratio);
        const int32_t bias = zo * 256 + 0x80;
        for (int32_t x = -128; x < 128; ++x) {
            const int32_t offset = zi - x; /* negated, as XNNPACK keeps it */
            const int32_t v = bias + offset * (offset >= 0 ? negative_multiplier : positive_multiplier);
            table[(uint8_t)x] = saturate_s8(v >> 8); /* arithmetic shift: rounds ties toward +infinity */
        }
        return RL_OK;
    }
    int32_t identity_multiplier, identity_shift, alpha_multiplier, alpha_shift;
    if (rl_quantize_multiplier((double)ratio, &identity_multiplier, &identity_shift) ||
        rl_quantize_multiplier((double)rl_tensor_scale(in, 0) * (double)alpha / (double)rl_tensor_scale(out, 0),
                               &alpha_multiplier, &alpha_shift))
        return rl_fail(plan, RL_UNSUPPORTED, "alpha %g: only alpha >= 0 in a representable range is supported on int8",
                       (double)alpha);
    for (int32_t x = -128; x < 128; ++x) {
        const int32_t v = x >= zi ? rl_mul_by_quantized_multiplier(x - zi, identity_multiplier, identity_shift)
                                  : rl_mul_by_quantized_multiplier(x - zi, alpha_multiplier, alpha_shift);
        table[(uint8_t)x] = saturate_s8(v + zo);
    }
    return RL_OK;
}

static void float_table(int32_t code, const rl_tensor *in, const rl_tensor *out, int8_t *table) {
    const float si = rl_tensor_scale(in, 0), so = rl_tensor_scale(out, 0);
    const int32_t zi = rl_tensor_zero_point(in, 0), zo = rl_tensor_zero_point(out, 0);
    for (int32_t x = -128; x < 128; ++x) {
        const float v = si * (float)(x - zi);
        const float y = code == RL_OP_TANH ? tanhf(v) : 1.0f / (1.0f + expf(-v));
        table[(uint8_t)x] = saturate_s8((int32_t)lrintf(y / so) + zo);
    }
}

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul. */
static int32_t srdhm16(int32_t a, int32_t b) {
    if (a == -32768 && b == -32768) return 32767;
    const int32_t ab = a * b;
    return (ab + (ab >= 0 ? (1 << 14) : 1 - (1 << 14))) / (1 << 15);
}

static int32_t saturate_s16(int32_t v) { return rl_clamp_i32(v, -32768, 32767); }

/* NEON's vqrdmulh on int16 lanes: the doubled product plus 2^15, high half (ties up), saturated. */
static int32_t vqrdmulh16(int32_t a, int32_t b) { return saturate_s16((int32_t)((2 * (int64_t)a * b + (1 << 15)) >> 16)); }

/* NEON's vrshl by -n on int16 lanes: add 2^(n-1), shift right arithmetically (ties up). */
static int32_t vrshr32(int32_t v, int32_t n) { return n > 0 ? (v + (1 << (n - 1))) >> n : v; }

/* LiteRT's builtin HARD_SWISH runs its NEON loop where TFLite is built with NEON (aarch64, armv7 with NEON). */
#if defined(__aarch64__) || defined(__ARM_NEON)
#define TFLITE_HARD_SWISH_NEON 1
#else
#define TFLITE_HARD_SWISH_NEON 0
#endif

/* TFLite's DownScaleInt32ToInt16Multiplier. */
static int32_t int16_multiplier(int32_t m) { return m >= INT32_MAX - (1 << 15) ? 32767 : (m + (1 << 15)) >> 16; }

/* TFLite's HARD_SWISH arithmetic on one input value. `neon`: its NEON loop (Arm builds), whose instructions round
 * half up (vqrdmulh, vrshl) and floor (vqdmulh) where the reference rounds half away from zero and truncates toward
 * zero; the loop takes 8 values a step and leaves the last count % 8 to the reference. */
static int8_t hard_swish_value(int32_t x, int32_t zi, int32_t zo, int32_t out_m16, int32_t out_e, int32_t rel_m16,
                               int32_t rel_e, int neon) {
    const int32_t hires = (x - zi) * 128;
    const int32_t preshift_output = neon ? vqrdmulh16(hires, out_m16) : srdhm16(hires, out_m16);
    int32_t reluish = hires;
    if (rel_e > 0) reluish = saturate_s16(reluish * (1 << (rel_e - 1)));
    reluish = neon ? vqrdmulh16(reluish, rel_m16) : srdhm16(reluish, rel_m16);
    if (rel_e > 0) reluish = saturate_s16(reluish * 2);
    if (rel_e < 0) reluish = neon ? vrshr32(reluish, -rel_e) : rl_rounding_divide_by_pot(reluish, -rel_e);
    reluish = (reluish + (1 << 15)) >> 1; /* [-1, 1] on 2^-15 to [0, 1] */
    int32_t product;
    if (neon) { /* vqdmulh: the doubled product's high half, floored (reluish >= 0: no saturation) */
        product = (int32_t)(((int64_t)reluish * preshift_output * 2) >> 16);
    } else { /* TFLite's int16 SaturatingDoublingHighMul: truncating, not rounding */
        product = (reluish == -32768 && preshift_output == -32768) ? 32767 : (reluish * preshift_output) / (1 << 15);
    }
    return saturate_s8((neon ? vrshr32(product, -out_e) : rl_rounding_divide_by_pot(product, -out_e)) + zo);
}

/* Where LiteRT runs its NEON loop, the last count % 8 values take the reference arithmetic: a second table in
 * the op's scratch for them. */
static rl_status hard_swish_run_with_tail(rl_plan *plan, rl_op *op) {
    const rl_s8_table_state *st = (const rl_s8_table_state *)op->state;
    const int8_t *x = (const int8_t *)rl_input(plan, op, 0)->data;
    int8_t *y = (int8_t *)rl_output(plan, op, 0)->data;
    const int64_t body = st->count - st->count % 8;
    plan->kernels->s8_lut(body, st->table, x, y);
    plan->kernels->s8_lut(st->count - body, (const int8_t *)op->scratch, x + body, y + body);
    return RL_OK;
}

static rl_status hard_swish_table(rl_plan *plan, rl_op *op, const rl_tensor *in, const rl_tensor *out,
                                  rl_s8_table_state *st) {
    const int32_t zi = rl_tensor_zero_point(in, 0), zo = rl_tensor_zero_point(out, 0);
    /* As TFLite's HardSwishPrepare: the input on a 2^-7 finer "hires" scale, ReLU6(x + 3) on scale 3/32768. */
    const float hires_input_scale = (1.0f / 128.0f) * rl_tensor_scale(in, 0);
    const float output_multiplier = hires_input_scale / rl_tensor_scale(out, 0);
    const float reluish_multiplier = hires_input_scale / (3.0f / 32768.0f);
    int32_t out_m, out_e, rel_m, rel_e;
    if (rl_quantize_multiplier(output_multiplier, &out_m, &out_e) || rl_quantize_multiplier(reluish_multiplier, &rel_m, &rel_e) ||
        out_e > 0)
        return rl_fail(plan, RL_INVALID, "input to output scale ratio %g is too large for int8 HARD_SWISH",
                       (double)(rl_tensor_scale(in, 0) / rl_tensor_scale(out, 0)));
    const int32_t out_m16 = int16_multiplier(out_m), rel_m16 = int16_multiplier(rel_m);
    for (int32_t x = -128; x < 128; ++x)
        st->table[(uint8_t)x] = hard_swish_value(x, zi, zo, out_m16, out_e, rel_m16, rel_e, TFLITE_HARD_SWISH_NEON);
    if (TFLITE_HARD_SWISH_NEON && st->count % 8) {
        int8_t *tail = rl_op_scratch(plan, op, 256);
        if (!tail) return RL_NO_MEMORY;
        for (int32_t x = -128; x < 128; ++x)
            tail[(uint8_t)x] = hard_swish_value(x, zi, zo, out_m16, out_e, rel_m16, rel_e, 0);
        op->run = hard_swish_run_with_tail;
        op->run_rows = NULL; /* the tail is where the tensor ends, which a band does not know */
    }
    return RL_OK;
}

rl_status rl_prepare_activation_s8(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_s8_table_state *st;
    rl_status s = rl_s8_table_prepare(plan, op, &st);
    if (s != RL_OK) return s;
    switch (op->code) {
    case RL_OP_RELU:
    case RL_OP_RELU6: return relu_table(plan, op, in, out, st->table);
    case RL_OP_LEAKY_RELU: return leaky_relu_table(plan, op->params.leaky_relu.alpha, in, out, st->table);
    case RL_OP_LOGISTIC:
    case RL_OP_TANH: float_table(op->code, in, out, st->table); return RL_OK;
    case RL_OP_HARD_SWISH: return hard_swish_table(plan, op, in, out, st);
    default: return rl_fail(plan, RL_UNSUPPORTED, "no int8 kernel");
    }
}

rl_status rl_eval_activation_s8(rl_plan *plan, rl_op *op) { return rl_s8_table_run(plan, op); }

/* SOFTMAX and LOG_SOFTMAX on int8: rows over the last axis, the one output quantization TFLite accepts
 * (it refuses others), and the table exp_table[255 - d] = expf(-input_scale * beta * d) both kernels read. */
static rl_status prepare_exp_table(rl_plan *plan, rl_op *op, const char *name, float beta, float output_scale,
                                   const char *output_scale_text, int32_t output_zero_point) {
    rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_dtype(plan, out, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, in, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, out, "output")) != RL_OK) return s;
    if (in->shape.rank < 1) return rl_fail(plan, RL_INVALID, "input must have rank 1 or more");
    if (rl_tensor_zero_point(out, 0) != output_zero_point || rl_tensor_scale(out, 0) != output_scale)
        return rl_fail(plan, RL_UNSUPPORTED, "int8 %s output must have scale %s and zero point %d, has %g and %d",
                       name, output_scale_text, output_zero_point, (double)rl_tensor_scale(out, 0),
                       rl_tensor_zero_point(out, 0));
    out->shape = in->shape;
    op->prep.inner = in->shape.dims[in->shape.rank - 1];
    op->prep.outer = op->prep.inner ? rl_shape_count(&in->shape) / op->prep.inner : 0;
    float *table = rl_op_scratch(plan, op, 256 * sizeof(float));
    if (!table) return RL_NO_MEMORY;
    const float scale = -rl_tensor_scale(in, 0) * beta;
    for (int32_t d = 0; d < 256; ++d) table[255 - d] = expf(scale * (float)d);
    return RL_OK;
}

static void run_s8_softmax_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count);
static void run_s8_log_softmax_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count);

rl_status rl_prepare_softmax_s8(rl_plan *plan, rl_op *op) {
    const rl_status s = prepare_exp_table(plan, op, "SOFTMAX", op->params.softmax.beta, 1.0f / 256.0f, "1/256", -128);
    if (s == RL_OK && op->prep.inner > 0) rl_offer_pixel_rows(op, rl_output(plan, op, 0), run_s8_softmax_rows);
    return s;
}

/* Rows of an int8 SOFTMAX or LOG_SOFTMAX split across the plan's threads (each row on its own: the same bits
 * on any split); the table lookups, sums and divisions are about four times an element-wise op's work. */
typedef struct {
    rl_plan *plan;
    rl_op *op;
    int log;
} rl_s8_softmax_job;

static void s8_softmax_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_s8_softmax_job *job = (const rl_s8_softmax_job *)context;
    rl_op *op = job->op;
    const rl_tensor *in = rl_input(job->plan, op, 0), *out = rl_output(job->plan, op, 0);
    const size_t at = row * (size_t)op->prep.inner;
    const int8_t *x = (const int8_t *)in->data + at;
    int8_t *y = (int8_t *)out->data + at;
    if (job->log)
        job->plan->kernels->s8_log_softmax((int64_t)rows, (int32_t)op->prep.inner, (const float *)op->scratch,
                                           rl_tensor_scale(in, 0), rl_tensor_scale(out, 0),
                                           rl_tensor_zero_point(out, 0), x, y);
    else
        job->plan->kernels->s8_softmax((int64_t)rows, (int32_t)op->prep.inner, (const float *)op->scratch,
                                       rl_tensor_scale(out, 0), rl_tensor_zero_point(out, 0), x, y);
}

static rl_status run_s8_softmax(rl_plan *plan, rl_op *op, int log) {
    rl_s8_softmax_job job = {.plan = plan, .op = op, .log = log};
    const size_t rows = (size_t)op->prep.outer;
    rl_parallelize_rows(plan, s8_softmax_rows, &job, rows, rows * (size_t)op->prep.inner * 4 * RL_ELEMENT_WORK);
    return RL_OK;
}

/* Banded execution (bands.h): the band's pixels are whole vectors of the last axis (rl_offer_pixel_rows). */
static void run_s8_softmax_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    rl_s8_softmax_job job = {.plan = plan, .op = (rl_op *)op, .log = 0};
    s8_softmax_rows(&job, first, 0, count, 1);
}

static void run_s8_log_softmax_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    rl_s8_softmax_job job = {.plan = plan, .op = (rl_op *)op, .log = 1};
    s8_softmax_rows(&job, first, 0, count, 1);
}

rl_status rl_eval_softmax_s8(rl_plan *plan, rl_op *op) { return run_s8_softmax(plan, op, 0); }

rl_status rl_prepare_log_softmax_s8(rl_plan *plan, rl_op *op) {
    const rl_status s = prepare_exp_table(plan, op, "LOG_SOFTMAX", 1.0f, 16.0f / 256.0f, "16/256", 127);
    if (s == RL_OK && op->prep.inner > 0) rl_offer_pixel_rows(op, rl_output(plan, op, 0), run_s8_log_softmax_rows);
    return s;
}

rl_status rl_eval_log_softmax_s8(rl_plan *plan, rl_op *op) { return run_s8_softmax(plan, op, 1); }
