/* unary_math.c — float32 FLOOR, CEIL, ROUND, ELU, GELU and RELU_N1_TO_1 (f32_unary_math_ref.c), and int8
 * RELU_N1_TO_1 as a 256-entry table with TFLite's builtin ReluX arithmetic (the input rescaled with
 * MultiplyByQuantizedMultiplier, clamped to the quantized [-1, 1]). */
#include "bands.h"
#include "conv_gemm.h"
#include "ops.h"

typedef struct {
    int64_t count;
    rl_math_unary_op op;
    int8_t table[256]; /* int8: indexed by the input's bits as uint8 */
} rl_unary_math_state;

RL_STATIC_ASSERT(sizeof(rl_unary_math_state) <= 512, "rl_unary_math_state is a small struct");

/* GELU on the f32_vexp kernels, in blocks of values split across the plan's threads. */
#define GELU_BLOCK 4096

typedef struct {
    rl_f32_vgelu_fn gelu;
    const float *x;
    float *y;
    size_t count;
} gelu_job;

static void gelu_blocks(void *context, size_t block, size_t j, size_t blocks, size_t columns) {
    (void)j, (void)columns;
    const gelu_job *job = (const gelu_job *)context;
    const size_t first = block * GELU_BLOCK, end = (block + blocks) * GELU_BLOCK;
    job->gelu((end < job->count ? end : job->count) - first, job->x + first, job->y + first);
}

static rl_status run_f32_gelu(rl_plan *plan, rl_op *op) {
    const rl_unary_math_state *st = (const rl_unary_math_state *)op->state;
    const rl_f32_vexp_config *k = &plan->kernels->f32_vexp;
    gelu_job job = {.gelu = st->op == RL_MATH_GELU_TANH ? k->gelu_tanh : k->gelu,
                    .x = (const float *)rl_input(plan, op, 0)->data, .y = (float *)rl_output(plan, op, 0)->data,
                    .count = (size_t)st->count};
    /* about 30 steps per value (two degree-5 polynomials and a divide, or e^x and a divide) */
    rl_parallelize_rows(plan, gelu_blocks, &job, (job.count + GELU_BLOCK - 1) / GELU_BLOCK, job.count * 30);
    return RL_OK;
}

/* Banded execution (bands.h) of a float GELU: chunks of its elements; a value's result does not depend on
 * where a call starts (the kernels' last values go through masked vectors, not other code). */
static void run_f32_gelu_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_unary_math_state *st = (const rl_unary_math_state *)op->state;
    const rl_f32_vexp_config *k = &plan->kernels->f32_vexp;
    const rl_f32_vgelu_fn gelu = st->op == RL_MATH_GELU_TANH ? k->gelu_tanh : k->gelu;
    const rl_tensor *output = rl_output(plan, op, 0);
    const size_t pixel = rl_band_pixel_elements(op, output);
    gelu(count * pixel, (const float *)rl_input(plan, op, 0)->data + first * pixel, (float *)output->data + first * pixel);
}

static rl_status run_unary_math(rl_plan *plan, rl_op *op) {
    const rl_unary_math_state *st = (const rl_unary_math_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    if (input->dtype == RL_INT8)
        plan->kernels->s8_lut(st->count, st->table, (const int8_t *)input->data, (int8_t *)rl_output(plan, op, 0)->data);
    else
        f32_unary_math_ref(st->op, st->count, (const float *)input->data, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

static rl_math_unary_op unary_math_of(const rl_op *op) {
    switch (op->code) {
    case RL_OP_FLOOR: return RL_MATH_FLOOR;
    case RL_OP_CEIL: return RL_MATH_CEIL;
    case RL_OP_ROUND: return RL_MATH_ROUND;
    case RL_OP_ELU: return RL_MATH_ELU;
    case RL_OP_GELU: return op->params.gelu.approximate ? RL_MATH_GELU_TANH : RL_MATH_GELU;
    default: return RL_MATH_RELU_N1_TO_1;
    }
}

static rl_status relu_n1_to_1_table(rl_plan *plan, const rl_tensor *in, const rl_tensor *out, int8_t *table) {
    rl_status s = rl_expect_per_tensor_quantization(plan, in, "input");
    if (s == RL_OK) s = rl_expect_per_tensor_quantization(plan, out, "output");
    if (s != RL_OK) return s;
    int32_t multiplier, shift, lo, hi;
    if (rl_quantize_multiplier((double)rl_tensor_scale(in, 0) / (double)rl_tensor_scale(out, 0), &multiplier, &shift))
        return rl_fail(plan, RL_INVALID, "input to output scale ratio is out of range");
    if ((s = rl_quantized_activation_range(plan, RL_ACT_RELU_N1_TO_1, out, &lo, &hi)) != RL_OK) return s;
    const int32_t zi = rl_tensor_zero_point(in, 0), zo = rl_tensor_zero_point(out, 0);
    for (int32_t x = -128; x < 128; ++x)
        table[(uint8_t)x] = (int8_t)rl_clamp_i32(rl_mul_by_quantized_multiplier(x - zi, multiplier, shift) + zo, lo, hi);
    return RL_OK;
}

rl_status rl_prepare_unary_math(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    const int s8 = input->dtype == RL_INT8 && op->code == RL_OP_RELU_N1_TO_1;
    if (!s8 && (s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    rl_unary_math_state *st = (rl_unary_math_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    st->op = unary_math_of(op);
    st->count = rl_shape_count(&input->shape);
    output->shape = input->shape;
    if (s8 && (s = relu_n1_to_1_table(plan, input, output, st->table)) != RL_OK) return s;
    op->run = op->code == RL_OP_GELU ? run_f32_gelu : run_unary_math;
    if (op->code == RL_OP_GELU) rl_offer_chunk_rows(op, output, run_f32_gelu_rows);
    return RL_OK;
}

rl_status rl_eval_unary_math(rl_plan *plan, rl_op *op) { return run_unary_math(plan, op); }
