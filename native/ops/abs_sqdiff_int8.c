/* abs_sqdiff_int8.c — ABS and SQUARED_DIFFERENCE on int8 (s8_abs_ref.c, s8_squared_difference_ref.c), as the
 * quantizer writes them, and ABS on int32; other dtypes go on to the float unary and broadcasting element-wise families
 * (elementwise.c). LiteRT 2.3's default Interpreter runs both int8 ops in TFLite's builtin kernels (probed:
 * AUTO, BUILTIN_WITHOUT_DEFAULT_DELEGATES and BUILTIN_REF agree), so their arithmetic is rillet's. */
#include "bands.h"
#include "conv_gemm.h" /* rl_pool_for, RL_ELEMENT_WORK */
#include "ops.h"

/* SQUARED_DIFFERENCE runs in rows of the broadcast's last axis (s8_vsqrdiff / s8_vsqrdiffc), its operands'
 * scaled values from two 256-entry tables that follow the struct in the op's state. */
typedef struct {
    rl_broadcast bc;
    rl_s8_abs_params abs;
    rl_s8_squared_difference_params sqdiff;
    rl_s8_sqrdiff_row_params rows;    /* a the left operand, b the right */
    rl_s8_sqrdiff_row_params swapped; /* the tables exchanged: for rows whose left operand is the one element */
} rl_abs_sqdiff_state;

RL_STATIC_ASSERT(sizeof(rl_abs_sqdiff_state) <= 512, "rl_abs_sqdiff_state is a small struct");

static rl_status multiplier(rl_plan *plan, double m, int32_t *mul, int32_t *shift, const char *what) {
    if (rl_quantize_multiplier(m, mul, shift))
        return rl_fail(plan, RL_UNSUPPORTED, "the %s scale ratio %g is out of TFLite's multiplier range", what, m);
    return RL_OK;
}

static rl_status run_abs(rl_plan *plan, rl_op *op) {
    const rl_abs_sqdiff_state *st = (const rl_abs_sqdiff_state *)op->state;
    const rl_tensor *x = rl_input(plan, op, 0);
    s8_abs_ref(rl_shape_count(&x->shape), &st->abs, (const int8_t *)x->data, (int8_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* int32 ABS (T5's relative position buckets take |i - j|): the most negative value stays itself, as the
 * two's-complement negation LiteRT's std::abs compiles to leaves it. */
static rl_status run_abs_s32(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0);
    const int32_t *in = (const int32_t *)x->data;
    int32_t *out = (int32_t *)rl_output(plan, op, 0)->data;
    const size_t n = rl_shape_count(&x->shape);
    for (size_t i = 0; i < n; ++i) out[i] = in[i] < 0 ? (int32_t)(0u - (uint32_t)in[i]) : in[i];
    return RL_OK;
}

rl_status rl_prepare_abs(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *x = rl_input(plan, op, 0), *y = rl_output(plan, op, 0);
    if (x->dtype == RL_INT32) {
        if ((s = rl_expect_dtype(plan, y, "output", RL_INT32)) != RL_OK) return s;
        y->shape = x->shape;
        op->run = run_abs_s32;
        return RL_OK;
    }
    if (x->dtype != RL_INT8) return rl_prepare_same_shape_f32(plan, op);
    if ((s = rl_expect_dtype(plan, y, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, x, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, y, "output")) != RL_OK) return s;
    rl_abs_sqdiff_state *st = (rl_abs_sqdiff_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const float sx = rl_tensor_scale(x, 0), sy = rl_tensor_scale(y, 0);
    st->abs.input_zero_point = rl_tensor_zero_point(x, 0);
    st->abs.output_zero_point = rl_tensor_zero_point(y, 0);
    st->abs.rescale = sx != sy;
    /* The ratio is a float division, as TFLite's (float scales, then widened): 0.5 / (1/3) is exactly 1.5 there,
     * so 7 steps give 10.5 -> 11, where the double ratio (1.49999995...) gives 10. */
    if ((s = multiplier(plan, (double)(sx / sy), &st->abs.multiplier, &st->abs.shift, "input-to-output")) != RL_OK)
        return s;
    y->shape = x->shape;
    op->run = run_abs;
    return RL_OK;
}

rl_status rl_eval_abs(rl_plan *plan, rl_op *op) { return op->run ? op->run(plan, op) : rl_eval_unary(plan, op); }

/* One row of `n` outputs from a row of a (stride sa, 0 or 1) and of b (sb). */
static void squared_difference_row(const rl_abs_sqdiff_state *st, size_t n, const int8_t *a, int64_t sa,
                                   const int8_t *b, int64_t sb, int8_t *y) {
    if (sa == 1 && sb == 1) s8_vsqrdiff__scalar(n, a, b, y, &st->rows);
    else if (sa == 1) s8_vsqrdiffc__scalar(n, a, b, y, &st->rows);
    else if (sb == 1) s8_vsqrdiffc__scalar(n, b, a, y, &st->swapped);
    else s8_vsqrdiffc__scalar(1, a, b, y, &st->rows); /* a one-element row (n is 1 here) */
}

/* Rows i .. i + rows - 1 of the collapsed output ([.., inner]). */
typedef struct {
    const rl_abs_sqdiff_state *st;
    const int8_t *a, *b;
    int8_t *y;
} rl_sqdiff_job;

static void squared_difference_rows(void *context, size_t i, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_sqdiff_job *job = (const rl_sqdiff_job *)context;
    const rl_broadcast *bc = &job->st->bc;
    const int64_t inner = bc->out_dims[7];
    int64_t index[7], ia = 0, ib = 0;
    size_t rest = i;
    for (int d = 6; d >= 0; --d) { /* row i's position on the outer axes */
        index[d] = (int64_t)(rest % (size_t)bc->out_dims[d]);
        rest /= (size_t)bc->out_dims[d];
        ia += index[d] * bc->a_strides[d];
        ib += index[d] * bc->b_strides[d];
    }
    int8_t *y = job->y + i * (size_t)inner;
    for (size_t r = 0; r < rows; ++r, y += inner) {
        squared_difference_row(job->st, (size_t)inner, job->a + ia, bc->a_strides[7], job->b + ib, bc->b_strides[7], y);
        for (int d = 6; d >= 0; --d) { /* the odometer over the outer axes, offsets kept incrementally */
            ia += bc->a_strides[d];
            ib += bc->b_strides[d];
            if (++index[d] < bc->out_dims[d]) break;
            ia -= bc->a_strides[d] * bc->out_dims[d];
            ib -= bc->b_strides[d] * bc->out_dims[d];
            index[d] = 0;
        }
    }
}

/* Whole rows split across the plan's threads (a layer norm's x against its mean: a row per token); the row
 * kernels are scalar, four times an element's work. */
static rl_status run_squared_difference(rl_plan *plan, rl_op *op) {
    const rl_abs_sqdiff_state *st = (const rl_abs_sqdiff_state *)op->state;
    const rl_broadcast *bc = &st->bc;
    rl_sqdiff_job job = {.st = st, .a = (const int8_t *)rl_input(plan, op, 0)->data,
                         .b = (const int8_t *)rl_input(plan, op, 1)->data, .y = (int8_t *)rl_output(plan, op, 0)->data};
    if (bc->count == 0) return RL_OK;
    const size_t rows = (size_t)bc->count / (size_t)bc->out_dims[7];
    rl_threadpool *pool = rl_pool_for(plan, (size_t)bc->count * 4 * RL_ELEMENT_WORK);
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    rl_parallelize_2d_tile_2d(pool, squared_difference_rows, &job, rows, 1, pool ? (rows + want - 1) / want : rows, 1);
    return RL_OK;
}

/* Banded execution (bands.h): the band's rows of the output's last axis, each operand read by rows or whole. */
static void run_squared_difference_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    rl_sqdiff_job job = {.st = (const rl_abs_sqdiff_state *)op->state, .a = (const int8_t *)rl_input(plan, op, 0)->data,
                         .b = (const int8_t *)rl_input(plan, op, 1)->data, .y = (int8_t *)rl_output(plan, op, 0)->data};
    squared_difference_rows(&job, first, 0, count, 1);
}

/* Input i's scaled value for each of its 256 codes, by the reference's formula (s8_squared_difference_ref.c). */
static void fill_scaled_table(const rl_s8_squared_difference_params *p, int input, int32_t *table) {
    for (int32_t v = -128; v < 128; ++v)
        table[v + 128] = rl_mul_by_quantized_multiplier((v - p->zero_point[input]) * (1 << 7), p->multiplier[input],
                                                        p->shift[input]);
}

/* TFLite's PrepareSquaredDifference: inputs scaled to twice the larger input scale with a left shift of 7,
 * so the output multiplier is that scale squared over 2^14 times the output scale. */
rl_status rl_prepare_squared_difference(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1), *y = rl_output(plan, op, 0);
    if (a->dtype != RL_INT8) return rl_prepare_binary(plan, op);
    if ((s = rl_expect_int8_binary_operands(plan, op)) != RL_OK) return s;
    const size_t sizes[3] = {sizeof(rl_abs_sqdiff_state), 256 * sizeof(int32_t), 256 * sizeof(int32_t)};
    void *parts[3];
    rl_abs_sqdiff_state *st = (rl_abs_sqdiff_state *)rl_op_state_parts(plan, op, 3, sizes, parts);
    if (!st) return RL_NO_MEMORY;
    if ((s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &y->shape, &st->bc)) != RL_OK) return s;
    const double sa = rl_tensor_scale(a, 0), sb = rl_tensor_scale(b, 0), sy = rl_tensor_scale(y, 0);
    const double twice_max = 2.0 * (sa > sb ? sa : sb);
    rl_s8_squared_difference_params *p = &st->sqdiff;
    p->zero_point[0] = rl_tensor_zero_point(a, 0);
    p->zero_point[1] = rl_tensor_zero_point(b, 0);
    p->output_zero_point = rl_tensor_zero_point(y, 0);
    if ((s = multiplier(plan, sa / twice_max, &p->multiplier[0], &p->shift[0], "input 0")) != RL_OK) return s;
    if ((s = multiplier(plan, sb / twice_max, &p->multiplier[1], &p->shift[1], "input 1")) != RL_OK) return s;
    if ((s = multiplier(plan, twice_max * twice_max / ((double)(1 << 14) * sy), &p->output_multiplier,
                        &p->output_shift, "output")) != RL_OK)
        return s;
    int32_t *scaled_a = (int32_t *)parts[1], *scaled_b = (int32_t *)parts[2];
    fill_scaled_table(p, 0, scaled_a);
    fill_scaled_table(p, 1, scaled_b);
    st->rows = (rl_s8_sqrdiff_row_params){.scaled = {scaled_a, scaled_b},
                                          .output_zero_point = p->output_zero_point,
                                          .output_multiplier = p->output_multiplier,
                                          .output_shift = p->output_shift};
    st->swapped = st->rows;
    st->swapped.scaled[0] = scaled_b;
    st->swapped.scaled[1] = scaled_a;
    op->run = run_squared_difference;
    const rl_broadcast *bc = &st->bc;
    const int ra = rl_band_read_of(bc, bc->a_strides), rb = rl_band_read_of(bc, bc->b_strides);
    if (y->shape.rank > 0 && bc->out_dims[7] == y->shape.dims[y->shape.rank - 1] && ra && rb) {
        rl_offer_pixel_rows(op, y, run_squared_difference_rows);
        op->band_whole_inputs = (ra == RL_BAND_READ_WHOLE ? 1u : 0u) | (rb == RL_BAND_READ_WHOLE ? 2u : 0u);
    }
    return RL_OK;
}

rl_status rl_eval_squared_difference(rl_plan *plan, rl_op *op) {
    return op->run ? op->run(plan, op) : rl_eval_binary(plan, op);
}
