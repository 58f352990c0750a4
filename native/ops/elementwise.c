/* elementwise.c — binary ops with broadcasting (arithmetic, MAXIMUM, MINIMUM, PRELU, the comparisons), unary
 * ops, LEAKY_RELU, SOFTMAX, LOG_SOFTMAX. */
#include <float.h>
#include <math.h>

#include "bands.h"
#include "conv_gemm.h" /* rl_pool_for */
#include "ops.h"

static rl_binary_op binary_of(int32_t code) {
    switch (code) {
    case RL_OP_SUB: return RL_BIN_SUB;
    case RL_OP_MUL: return RL_BIN_MUL;
    case RL_OP_DIV: return RL_BIN_DIV;
    case RL_OP_SQUARED_DIFFERENCE: return RL_BIN_SQUARED_DIFFERENCE;
    case RL_OP_MAXIMUM: return RL_BIN_MAXIMUM;
    case RL_OP_MINIMUM: return RL_BIN_MINIMUM;
    case RL_OP_PRELU: return RL_BIN_PRELU;
    default: return RL_BIN_ADD;
    }
}

int rl_compare_of(int32_t code) {
    switch (code) {
    case RL_OP_GREATER: return RL_CMP_GREATER;
    case RL_OP_GREATER_EQUAL: return RL_CMP_GREATER_EQUAL;
    case RL_OP_LESS: return RL_CMP_LESS;
    case RL_OP_LESS_EQUAL: return RL_CMP_LESS_EQUAL;
    case RL_OP_EQUAL: return RL_CMP_EQUAL;
    case RL_OP_NOT_EQUAL: return RL_CMP_NOT_EQUAL;
    default: return -1;
    }
}

static int has_activation(int32_t code) {
    return code == RL_OP_ADD || code == RL_OP_SUB || code == RL_OP_MUL || code == RL_OP_DIV;
}

static rl_status run_s8_minmax(rl_plan *plan, rl_op *op) {
    s8_minmax_ref(op->code == RL_OP_MAXIMUM, &op->prep.bc, (const int8_t *)rl_input(plan, op, 0)->data,
                  (const int8_t *)rl_input(plan, op, 1)->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* How a float binary op's operands line up, found once at prepare: the micro-kernel form each invoke calls. */
typedef enum {
    F32_BINARY_BROADCAST,   /* anything else: f32_binary_ref walks the broadcast */
    F32_BINARY_SAME_SHAPE,  /* both operands have the output's shape: vbinary */
    F32_BINARY_ONE_VALUE,   /* one operand is a single value: vbinaryc */
    F32_BINARY_PER_CHANNEL, /* one is the output's last axes (a bias, PRELU's [1, 1, C] alpha): vbinary_rows */
    F32_BINARY_ROW_VALUE    /* one has one value per row of the last axis ([.., R, 1], a layer norm's mean), the
                             * other the output's shape or only its last axis: vbinaryc a row at a time */
} rl_f32_binary_form;

typedef struct {
    rl_binary_op op;
    rl_f32_binary_form form;
    int32_t reversed;       /* the single value or the vector is the left operand, a */
    size_t channels;        /* F32_BINARY_PER_CHANNEL: the vector's length, each row of the full operand's;
                             * F32_BINARY_ROW_VALUE: the row's length */
    size_t row_step;        /* F32_BINARY_ROW_VALUE: the other operand's step from row to row (0: the last axis) */
    rl_f32_minmax_params clamp;
} rl_f32_binary_state;

RL_STATIC_ASSERT(sizeof(rl_f32_binary_state) <= 64, "rl_f32_binary_state is a small header");

/* The number of elements of an operand (its rank-8 strides) when it is the output's last axes, whole, repeated
 * over all the others ([C], [1, 1, C] or [W, C] against [N, H, W, C]); 0 when it is not. The whole output is
 * one such block of itself. */
static int64_t trailing_block(const rl_broadcast *bc, const int64_t *strides) {
    int64_t block = 1;
    int d = 7;
    for (; d >= 0 && (strides[d] != 0 || bc->out_dims[d] == 1); --d) block *= bc->out_dims[d];
    for (; d >= 0; --d)
        if (bc->out_dims[d] != 1 && strides[d] != 0) return 0;
    return block;
}

/* Outputs [first, first + count) (a multiple of the vector's length in the per-channel form). */
static void run_f32_binary_span(const rl_plan *plan, const rl_f32_binary_state *st, size_t first, size_t count,
                                const float *a, const float *b, float *out) {
    const rl_f32_vbinary_config *k = &plan->kernels->f32_vbinary;
    switch (st->form) {
    case F32_BINARY_SAME_SHAPE: k->vbinary(st->op, count, a + first, b + first, out + first, &st->clamp); return;
    case F32_BINARY_ONE_VALUE:
        if (st->reversed) k->vbinaryc(st->op, 1, count, b + first, a, out + first, &st->clamp);
        else k->vbinaryc(st->op, 0, count, a + first, b, out + first, &st->clamp);
        return;
    case F32_BINARY_PER_CHANNEL:
        if (st->reversed) k->vbinary_rows(st->op, 1, count / st->channels, st->channels, b + first, a, out + first,
                                          &st->clamp);
        else k->vbinary_rows(st->op, 0, count / st->channels, st->channels, a + first, b, out + first, &st->clamp);
        return;
    case F32_BINARY_ROW_VALUE: {
        const float *values = st->reversed ? a : b, *x = st->reversed ? b : a;
        for (size_t at = first; at < first + count; at += st->channels) {
            const size_t row = at / st->channels;
            k->vbinaryc(st->op, st->reversed, st->channels, x + row * st->row_step, values + row, out + at, &st->clamp);
        }
        return;
    }
    case F32_BINARY_BROADCAST: return; /* never banded; run_f32_binary calls the reference */
    }
}

/* Whether an operand's strides over the output's axes before `last` are the output's own layout with `inner`
 * elements per step of axis last - 1 (axes of one element take any stride). */
static int leading_layout(const rl_broadcast *bc, const int64_t *strides, int last, int64_t inner) {
    int64_t stride = inner;
    for (int d = last - 1; d >= 0; --d) {
        if (bc->out_dims[d] != 1 && strides[d] != stride) return 0;
        stride *= bc->out_dims[d];
    }
    return 1;
}

/* Whether an operand holds one value per row of the output's last axis, in the output's order ([.., R, 1]). */
static int row_values(const rl_broadcast *bc, const int64_t *strides) {
    return strides[7] == 0 && leading_layout(bc, strides, 7, 1);
}

/* The row step of an operand that is the output's shape (the row length) or its last axis alone (0); -1 when
 * it is neither. */
static int64_t row_step_of(const rl_broadcast *bc, const int64_t *strides) {
    if (strides[7] != 1) return -1;
    if (leading_layout(bc, strides, 7, bc->out_dims[7])) return bc->out_dims[7];
    for (int d = 0; d < 7; ++d)
        if (bc->out_dims[d] != 1 && strides[d] != 0) return -1;
    return 0;
}

/* Outside bands, element-wise ops of 8192 elements and more (RL_ELEMENT_WORK) split across the plan's threads in runs of whole rows (a form's row,
 * or whole 64-element blocks for the same-shape and single-value forms, the tail in the last run:
 * rl_parallelize_elements): an op alone, or the first of a run too short or uneven to band.
 * Every element is computed by the same kernel as on one thread. */
typedef struct {
    const rl_plan *plan;
    const rl_f32_binary_state *st;
    size_t unit;
    const float *a, *b;
    float *out;
} rl_f32_binary_job;

static void run_f32_binary_tile(void *context, size_t i, size_t j, size_t tile_i, size_t tile_j) {
    (void)j;
    (void)tile_j;
    const rl_f32_binary_job *job = (const rl_f32_binary_job *)context;
    run_f32_binary_span(job->plan, job->st, i * job->unit, tile_i * job->unit, job->a, job->b, job->out);
}

static rl_status run_f32_binary(rl_plan *plan, rl_op *op) {
    const rl_f32_binary_state *st = (const rl_f32_binary_state *)op->state;
    const float *a = (const float *)rl_input(plan, op, 0)->data, *b = (const float *)rl_input(plan, op, 1)->data;
    float *out = (float *)rl_output(plan, op, 0)->data;
    const size_t count = (size_t)op->prep.bc.count;
    if (count == 0) return RL_OK; /* an empty tensor's data may be NULL, and NULL + 0 is undefined */
    if (st->form == F32_BINARY_BROADCAST) {
        plan->kernels->f32_binary(st->op, &op->prep.bc, a, b, out);
        return RL_OK;
    }
    rl_threadpool *pool = rl_pool_for(plan, count * RL_ELEMENT_WORK);
    const int rows = st->form == F32_BINARY_PER_CHANNEL || st->form == F32_BINARY_ROW_VALUE;
    rl_f32_binary_job job = {.plan = plan, .st = st, .unit = 1, .a = a, .b = b, .out = out};
    if (!rows) { /* runs of whole blocks, the tail in the last: ViT's attention scale, [3, 197, 197], ran on one */
        rl_parallelize_elements(plan, run_f32_binary_tile, &job, count, RL_ELEMENT_WORK);
        return RL_OK;
    }
    const size_t unit = st->channels;
    if (!pool || count % unit != 0) {
        run_f32_binary_span(plan, st, 0, count, a, b, out);
        return RL_OK;
    }
    job.unit = unit;
    const size_t units = count / unit, want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    rl_parallelize_2d_tile_2d(pool, run_f32_binary_tile, &job, units, 1, (units + want - 1) / want, 1);
    return RL_OK;
}

/* Banded execution (bands.h): pixel p of the output is its elements p * C ..., and reads the same elements
 * of the full operands, value p of a row-value operand, and the whole of a single value or a vector of C. */
static void run_f32_binary_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_f32_binary_state *st = (const rl_f32_binary_state *)op->state;
    const rl_tensor *output = rl_output(plan, op, 0);
    const size_t pixel = rl_band_pixel_elements(op, output);
    run_f32_binary_span(plan, st, first * pixel, count * pixel, (const float *)rl_input(plan, op, 0)->data,
                        (const float *)rl_input(plan, op, 1)->data, (float *)output->data);
}

/* Banded execution (bands.h) of the general broadcast form over rows of the output's last axis (ViT's scores
 * [3, 197, 197] plus a [1, 1, 197, 197] bias): each row the reference kernel over a broadcast of that row alone,
 * the same arithmetic per element as the op's own run. */
static void run_f32_broadcast_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_f32_binary_state *st = (const rl_f32_binary_state *)op->state;
    const rl_broadcast *bc = &op->prep.bc;
    const float *a = (const float *)rl_input(plan, op, 0)->data, *b = (const float *)rl_input(plan, op, 1)->data;
    float *out = (float *)rl_output(plan, op, 0)->data;
    rl_broadcast row = {.count = bc->out_dims[7], .act_min = bc->act_min, .act_max = bc->act_max};
    for (int d = 0; d < 7; ++d) row.out_dims[d] = 1;
    row.out_dims[7] = bc->out_dims[7];
    row.a_strides[7] = bc->a_strides[7];
    row.b_strides[7] = bc->b_strides[7];
    for (size_t r = first; r < first + count; ++r) {
        int64_t ia = 0, ib = 0;
        size_t rest = r;
        for (int d = 6; d >= 0; --d) {
            const int64_t index = (int64_t)(rest % (size_t)bc->out_dims[d]);
            rest /= (size_t)bc->out_dims[d];
            ia += index * bc->a_strides[d];
            ib += index * bc->b_strides[d];
        }
        plan->kernels->f32_binary(st->op, &row, a + ia, b + ib, out + r * (size_t)bc->out_dims[7]);
    }
}

/* Banded execution of a per-channel form whose vector is a block of several rows repeated (ViT's [1, 1, 197, 197]
 * bias over [3, 197, 197] scores): each row against its row of the block. ADD, SUB and MUL only: one rounding per
 * element on every path, so a row's kernel gives the block kernel's bits. */
static void run_f32_repeated_block_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_f32_binary_state *st = (const rl_f32_binary_state *)op->state;
    const rl_tensor *output = rl_output(plan, op, 0);
    const size_t row = rl_band_pixel_elements(op, output);
    const float *a = (const float *)rl_input(plan, op, 0)->data, *b = (const float *)rl_input(plan, op, 1)->data;
    const float *full = st->reversed ? b : a, *block = st->reversed ? a : b;
    float *out = (float *)output->data;
    const rl_f32_vbinary_config *k = &plan->kernels->f32_vbinary;
    for (size_t r = first; r < first + count; ++r) {
        const size_t at = r * row, in_block = at % st->channels;
        if (st->reversed) k->vbinary(st->op, row, block + in_block, full + at, out + at, &st->clamp);
        else k->vbinary(st->op, row, full + at, block + in_block, out + at, &st->clamp);
    }
}

/* A float arithmetic op's state: its form, and bands where each pixel's outputs read their own inputs. */
static rl_status prepare_f32_binary(rl_plan *plan, rl_op *op) {
    rl_f32_binary_state *st = (rl_f32_binary_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    rl_broadcast *bc = &op->prep.bc;
    const rl_tensor *output = rl_output(plan, op, 0);
    /* No activation, or RELU's open top, bounds nothing, as in XNNPACK, which LiteRT's default Interpreter runs
     * these ops on: an infinity (an input's, or an overflow's) stays one, not +-FLT_MAX (TFLite's builtin). */
    if (bc->act_min == -FLT_MAX) bc->act_min = -INFINITY;
    if (bc->act_max == FLT_MAX) bc->act_max = INFINITY;
    st->op = binary_of(op->code);
    st->clamp.min = bc->act_min;
    st->clamp.max = bc->act_max;
    const int64_t a_block = trailing_block(bc, bc->a_strides), b_block = trailing_block(bc, bc->b_strides);
    if (bc->contiguous == 1) {
        st->form = F32_BINARY_SAME_SHAPE;
    } else if (bc->contiguous == 2 || bc->contiguous == 3) {
        st->form = F32_BINARY_ONE_VALUE;
        st->reversed = bc->contiguous == 3;
    } else if (bc->count > 0 && (a_block == bc->count || b_block == bc->count) && (a_block > 1 && b_block > 1)) {
        st->form = F32_BINARY_PER_CHANNEL;
        st->reversed = a_block < b_block;
        st->channels = (size_t)(st->reversed ? a_block : b_block);
    } else if (bc->count > 0 && bc->out_dims[7] > 1 &&
               ((row_values(bc, bc->a_strides) && row_step_of(bc, bc->b_strides) >= 0) ||
                (row_values(bc, bc->b_strides) && row_step_of(bc, bc->a_strides) >= 0))) {
        st->form = F32_BINARY_ROW_VALUE;
        st->reversed = bc->a_strides[7] == 0;
        st->channels = (size_t)bc->out_dims[7];
        st->row_step = (size_t)row_step_of(bc, st->reversed ? bc->b_strides : bc->a_strides);
    } else {
        st->form = F32_BINARY_BROADCAST;
    }
    op->run = run_f32_binary;
    /* Bands (bands.h), any rank (a layer norm's chain over tokens): same-shape and single-value forms by
     * chunks of elements; a per-channel form by pixels of its vector's length, one value per row by rows
     * (the value operand holds one per pixel). Single values and vectors are read whole. */
    const uint32_t a_whole = st->reversed ? 2u : 1u, b_whole = st->reversed ? 1u : 2u;
    const rl_shape *s = &output->shape;
    const size_t last = s->rank > 0 ? (size_t)s->dims[s->rank - 1] : 0;
    if (st->form == F32_BINARY_SAME_SHAPE || st->form == F32_BINARY_ONE_VALUE) {
        rl_offer_chunk_rows(op, output, run_f32_binary_rows);
        op->band_whole_inputs = st->form == F32_BINARY_ONE_VALUE ? b_whole : 0;
    } else if ((st->form == F32_BINARY_PER_CHANNEL && st->channels == last) || st->form == F32_BINARY_ROW_VALUE) {
        rl_offer_pixel_rows(op, output, run_f32_binary_rows);
        op->band_whole_inputs = st->form == F32_BINARY_PER_CHANNEL ? b_whole : st->row_step == 0 ? a_whole : 0;
    } else if (st->form == F32_BINARY_PER_CHANNEL && last > 0 && st->channels % last == 0 &&
               (st->op == RL_BIN_ADD || st->op == RL_BIN_SUB || st->op == RL_BIN_MUL)) {
        rl_offer_pixel_rows(op, output, run_f32_repeated_block_rows);
        op->band_whole_inputs = b_whole;
    } else if (st->form == F32_BINARY_BROADCAST && bc->count > 0 && s->rank > 0 && bc->out_dims[7] == (int64_t)last &&
               (bc->a_strides[7] == 0 || bc->a_strides[7] == 1) && (bc->b_strides[7] == 0 || bc->b_strides[7] == 1)) {
        /* An operand whose rows are not the output's (repeated over heads) is read at other bands' rows: whole. */
        rl_offer_pixel_rows(op, output, run_f32_broadcast_rows);
        op->band_whole_inputs = (rl_band_read_of(bc, bc->a_strides) == RL_BAND_READ_ROWS ? 0u : 1u) |
                                (rl_band_read_of(bc, bc->b_strides) == RL_BAND_READ_ROWS ? 0u : 2u);
    }
    return RL_OK;
}

rl_status rl_prepare_binary(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (b->dtype != a->dtype)
        return rl_fail(plan, RL_INVALID, "operands are %s and %s", rl_dtype_name(a->dtype), rl_dtype_name(b->dtype));
    const int comparison = rl_compare_of(op->code) >= 0;
    const int32_t out_dtype = comparison ? RL_BOOL : a->dtype;
    if ((s = rl_expect_dtype(plan, output, "output", out_dtype)) != RL_OK) return s;
    if (a->dtype == RL_INT8 && (op->code == RL_OP_MAXIMUM || op->code == RL_OP_MINIMUM)) {
        for (int32_t i = 0; i < 2; ++i) {
            const rl_tensor *t = rl_input(plan, op, i);
            if ((s = rl_expect_per_tensor_quantization(plan, t, "input")) != RL_OK) return s;
            if ((s = rl_expect_quantized_alike(plan, t, i ? "input 1" : "input 0", output, "output")) != RL_OK) return s;
        }
        if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc)) != RL_OK) return s;
        op->run = run_s8_minmax;
        return RL_OK;
    }
    if (a->dtype == RL_INT8) return rl_prepare_binary_s8(plan, op);
    if (a->dtype == RL_INT16) return rl_prepare_binary_s16(plan, op); /* binary_int16.c */
    const int int32_ok = !comparison && op->code != RL_OP_PRELU;
    if (a->dtype != RL_FLOAT32 && !(a->dtype == RL_INT32 && int32_ok))
        return rl_fail(plan, RL_UNSUPPORTED, "no kernel for %s operands", rl_dtype_name(a->dtype));
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc)) != RL_OK) return s;
    const int32_t activation = has_activation(op->code) ? op->params.arithmetic.activation : RL_ACT_NONE;
    if ((s = rl_activation_range(plan, activation, &op->prep.bc.act_min, &op->prep.bc.act_max)) != RL_OK) return s;
    if (a->dtype == RL_INT32 && activation != RL_ACT_NONE)
        return rl_fail(plan, RL_UNSUPPORTED, "fused activations on int32 are not supported");
    if (a->dtype == RL_FLOAT32 && !comparison) return prepare_f32_binary(plan, op);
    return RL_OK;
}

rl_status rl_eval_binary(rl_plan *plan, rl_op *op) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    void *out = rl_output(plan, op, 0)->data;
    if (a->dtype == RL_INT8) return rl_eval_binary_s8(plan, op);
    if (rl_compare_of(op->code) >= 0) {
        f32_compare_ref((rl_compare_op)rl_compare_of(op->code), &op->prep.bc, (const float *)a->data,
                        (const float *)b->data, (uint8_t *)out);
    } else if (a->dtype == RL_INT32) {
        s32_binary_ref(binary_of(op->code), &op->prep.bc, (const int32_t *)a->data, (const int32_t *)b->data,
                       (int32_t *)out);
    } else {
        return run_f32_binary(plan, op); /* prepare made its state */
    }
    return RL_OK;
}

static void run_f32_leaky_relu_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count);
static void run_f32_unary_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count);

/* Banded execution (bands.h): output pixel p is the log-softmax of input vector p alone. */
static void run_f32_log_softmax_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const size_t depth = (size_t)op->prep.inner;
    const float *x = (const float *)rl_input(plan, op, 0)->data + first * depth;
    plan->kernels->f32_log_softmax((int64_t)count, (int32_t)depth, x, (float *)rl_output(plan, op, 0)->data + first * depth);
}

rl_status rl_prepare_same_shape_f32(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if (input->dtype == RL_INT8 && op->code != RL_OP_SOFTMAX && op->code != RL_OP_LOG_SOFTMAX)
        return rl_prepare_activation_s8(plan, op);
    if (input->dtype == RL_INT8 && op->code == RL_OP_SOFTMAX) return rl_prepare_softmax_s8(plan, op);
    if (input->dtype == RL_INT8 && op->code == RL_OP_LOG_SOFTMAX) return rl_prepare_log_softmax_s8(plan, op);
    if (input->dtype == RL_INT16) return rl_prepare_activation_s16(plan, op); /* activation_int16.c */
    if ((s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    output->shape = input->shape;
    op->prep.count = rl_shape_count(&input->shape);
    if (op->code == RL_OP_SOFTMAX || op->code == RL_OP_LOG_SOFTMAX) {
        if (input->shape.rank < 1) return rl_fail(plan, RL_INVALID, "input must have rank 1 or more");
        op->prep.inner = input->shape.dims[input->shape.rank - 1];
        op->prep.outer = op->prep.inner ? op->prep.count / op->prep.inner : 0;
        if (op->code == RL_OP_SOFTMAX) return rl_prepare_softmax_f32(plan, op);
        /* a row op, not an element-wise one: bands of whole vectors along the last axis */
        if (op->prep.inner > 0) rl_offer_pixel_rows(op, output, run_f32_log_softmax_rows);
        return RL_OK;
    }
    /* LEAKY_RELU and the unary ops (every other float op that comes here: LOGISTIC, TANH, RELU, and NEG, RSQRT,
     * ABS... from their own prepares, run by rl_eval_unary) compute each pixel from that pixel alone, each
     * element by the same operations wherever it lies in a call, except AVX2's SIN and COS (libm for the last
     * n % 8 values): those only in bands of whole 64-element blocks. */
    const int leaky = op->code == RL_OP_LEAKY_RELU;
    const int32_t last = input->shape.rank > 0 ? input->shape.dims[input->shape.rank - 1] : 0;
    if (op->run || last <= 0) return RL_OK;
    if (op->code != RL_OP_SIN && op->code != RL_OP_COS)
        rl_offer_chunk_rows(op, output, leaky ? run_f32_leaky_relu_rows : run_f32_unary_rows);
    else if (last % RL_ELEMENT_BLOCK == 0)
        rl_offer_pixel_rows(op, output, run_f32_unary_rows);
    return RL_OK;
}

static rl_unary_op unary_of(int32_t code) {
    switch (code) {
    case RL_OP_RSQRT: return RL_UN_RSQRT;
    case RL_OP_EXP: return RL_UN_EXP;
    case RL_OP_LOG: return RL_UN_LOG;
    case RL_OP_NEG: return RL_UN_NEG;
    case RL_OP_RELU: return RL_UN_RELU;
    case RL_OP_RELU6: return RL_UN_RELU6;
    case RL_OP_LOGISTIC: return RL_UN_LOGISTIC;
    case RL_OP_TANH: return RL_UN_TANH;
    case RL_OP_SIN: return RL_UN_SIN;
    case RL_OP_COS: return RL_UN_COS;
    case RL_OP_ABS: return RL_UN_ABS;
    case RL_OP_SQRT: return RL_UN_SQRT;
    case RL_OP_SQUARE: return RL_UN_SQUARE;
    default: return RL_UN_HARD_SWISH;
    }
}

/* Outside bands a float unary op or LEAKY_RELU splits its elements across the plan's threads (runs of whole
 * 64-element blocks, rl_parallelize_elements: the same lanes for every element as on one thread). */
typedef struct {
    rl_plan *plan;
    const rl_op *op;
} rl_f32_unary_job;

static void f32_unary_elements(void *context, size_t first, size_t unused_j, size_t count, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_f32_unary_job *job = (const rl_f32_unary_job *)context;
    const float *x = (const float *)rl_input(job->plan, job->op, 0)->data + first;
    float *y = (float *)rl_output(job->plan, job->op, 0)->data + first;
    if (job->op->code == RL_OP_LEAKY_RELU)
        job->plan->kernels->f32_vbinary.vlrelu(count, job->op->params.leaky_relu.alpha, x, y);
    else
        job->plan->kernels->f32_unary(unary_of(job->op->code), (int64_t)count, x, y);
}

static void run_f32_unary(rl_plan *plan, const rl_op *op) {
    rl_f32_unary_job job = {.plan = plan, .op = op};
    rl_parallelize_elements(plan, f32_unary_elements, &job, (size_t)op->prep.count, RL_ELEMENT_WORK);
}

rl_status rl_eval_unary(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_activation_s8(plan, op);
    run_f32_unary(plan, op);
    return RL_OK;
}

/* Banded execution (bands.h) of a float unary op: chunks of its elements (SIN and COS: whole pixels). */
static void run_f32_unary_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_tensor *output = rl_output(plan, op, 0);
    const size_t pixel = rl_band_pixel_elements(op, output);
    plan->kernels->f32_unary(unary_of(op->code), (int64_t)(count * pixel),
                             (const float *)rl_input(plan, op, 0)->data + first * pixel, (float *)output->data + first * pixel);
}

rl_status rl_eval_leaky_relu(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_activation_s8(plan, op);
    run_f32_unary(plan, op);
    return RL_OK;
}

/* Banded execution (bands.h) of a float LEAKY_RELU: chunks of its elements. */
static void run_f32_leaky_relu_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_tensor *output = rl_output(plan, op, 0);
    const size_t pixel = rl_band_pixel_elements(op, output);
    plan->kernels->f32_vbinary.vlrelu(count * pixel, op->params.leaky_relu.alpha,
                                      (const float *)rl_input(plan, op, 0)->data + first * pixel,
                                      (float *)output->data + first * pixel);
}

rl_status rl_eval_softmax(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_softmax_s8(plan, op);
    plan->kernels->f32_softmax(op->prep.outer, (int32_t)op->prep.inner, op->params.softmax.beta,
                               (const float *)rl_input(plan, op, 0)->data, (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_eval_log_softmax(rl_plan *plan, rl_op *op) {
    if (rl_input(plan, op, 0)->dtype == RL_INT8) return rl_eval_log_softmax_s8(plan, op);
    plan->kernels->f32_log_softmax(op->prep.outer, (int32_t)op->prep.inner, (const float *)rl_input(plan, op, 0)->data,
                                   (float *)rl_output(plan, op, 0)->data);
    return RL_OK;
}
