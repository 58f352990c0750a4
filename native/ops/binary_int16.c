/* binary_int16.c — ADD, SUB, MUL, DIV, MAXIMUM and MINIMUM of TFLite's 16x8 mode: int16 operands and output, zero
 * points 0, broadcasting, on s16_binary_ref.c (general ADD / SUB whose rows are contiguous or one value on
 * s16_velementwise.h's SIMD path); elementwise.c sends int16 operands here. FLOOR_DIV and FLOOR_MOD too
 * (binary_math.c sends them), on raw values. Which ADD / SUB arithmetic runs is LiteRT's choice: the general one
 * unless the options ask for power-of-two scales (pot_scale_int16, true by the schema's default, false in what
 * TensorFlow's converter writes) and all three scales are powers of two. */
#include <math.h>

#include "conv_gemm.h" /* rl_parallelize_rows */
#include "ops.h"
#include "s16_elementwise.h"

typedef struct {
    rl_s16_binary_params p;
    rl_s8_div_params div; /* DIV: the int8 DIV's arithmetic on int16 values */
} rl_s16_binary_state;

static rl_status run_div_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_binary_state *st = (const rl_s16_binary_state *)op->state;
    const rl_tensor *b = rl_input(plan, op, 1);
    const int16_t *divisor = (const int16_t *)b->data;
    const int64_t n = rl_shape_count(&b->shape);
    for (int64_t i = 0; i < n; ++i)
        if (divisor[i] == 0) return rl_fail(plan, RL_INVALID, "int16 DIV by zero: divisor element %lld", (long long)i);
    s16_div_ref(&op->prep.bc, &st->div, (const int16_t *)rl_input(plan, op, 0)->data, divisor,
                (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* A same-shape ADD / SUB over the plan's threads in runs of 64 values, the last run to the end: every run but the
 * last is whole blocks of 16 and the last keeps the tensor's n % 16, so one_rounding_blocks rounds each value as
 * one call over the whole tensor would. */
enum { S16_ADDSUB_RUN = 64 };

typedef struct {
    const rl_plan *plan;
    const rl_s16_binary_params *p;
    size_t count;
    const int16_t *a, *b;
    int16_t *y;
} rl_s16_addsub_job;

static void run_addsub_s16_tile(void *context, size_t i, size_t j, size_t tile_i, size_t tile_j) {
    (void)j;
    (void)tile_j;
    const rl_s16_addsub_job *job = (const rl_s16_addsub_job *)context;
    const size_t start = i * S16_ADDSUB_RUN, end = (i + tile_i) * S16_ADDSUB_RUN;
    const size_t n = (end < job->count ? end : job->count) - start;
    job->plan->kernels->s16_velementwise.vaddsub(n, job->p, job->a + start, job->b + start, job->y + start);
}

/* General ADD / SUB whose operands each walk the output's rows or hold one value per row (same shapes, x + [width],
 * x - [rows, 1]): the kernel table's SIMD path a row at a time, a one-value row spread into arena scratch first. */
static rl_status run_addsub_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_binary_state *st = (const rl_s16_binary_state *)op->state;
    const rl_broadcast *bc = &op->prep.bc;
    const int16_t *a = (const int16_t *)rl_input(plan, op, 0)->data, *b = (const int16_t *)rl_input(plan, op, 1)->data;
    int16_t *y = (int16_t *)rl_output(plan, op, 0)->data;
    if (bc->contiguous == 1) {
        const size_t count = (size_t)bc->count;
        if (count == 0) return RL_OK;
        rl_s16_addsub_job job = {.plan = plan, .p = &st->p, .count = count, .a = a, .b = b, .y = y};
        rl_parallelize_rows(plan, run_addsub_s16_tile, &job, (count + S16_ADDSUB_RUN - 1) / S16_ADDSUB_RUN, count);
        return RL_OK;
    }
    if (bc->count == 0) return RL_OK;
    const int64_t inner = bc->out_dims[7];
    int16_t *spread = (int16_t *)op->arena_scratch;
    int64_t index[8] = {0};
    do {
        int64_t ia, ib;
        rl_broadcast_row(bc, index, &ia, &ib);
        const int16_t *ra = a + ia, *rb = b + ib;
        if (bc->a_strides[7] == 0 && inner > 1) {
            for (int64_t i = 0; i < inner; ++i) spread[i] = a[ia];
            ra = spread;
        }
        if (bc->b_strides[7] == 0 && inner > 1) {
            for (int64_t i = 0; i < inner; ++i) spread[inner + i] = b[ib];
            rb = spread + inner;
        }
        plan->kernels->s16_velementwise.vaddsub((size_t)inner, &st->p, ra, rb, y);
        y += inner;
    } while (rl_next_index(7, bc->out_dims, index));
    return RL_OK;
}

static rl_status run_binary_s16(rl_plan *plan, rl_op *op) {
    const rl_s16_binary_state *st = (const rl_s16_binary_state *)op->state;
    s16_binary_ref(&st->p, &op->prep.bc, (const int16_t *)rl_input(plan, op, 0)->data,
                   (const int16_t *)rl_input(plan, op, 1)->data, (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

/* TFLite's CheckedLog2, in float as it computes it: whether scale is 2^k within 1e-3 in the exponent. */
static int checked_log2(float scale, int32_t *log2_rounded) {
    const float l = logf(scale) * (1.0f / logf(2.0f));
    const float r = roundf(l);
    *log2_rounded = (int32_t)r;
    return fabsf(l - r) < 1e-3f;
}

static rl_status multiplier_below_one(rl_plan *plan, double real, int32_t *m, int32_t *shift, const char *what) {
    if (rl_quantize_multiplier(real, m, shift) || *shift > 0)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 %s rescale %g is not below one, as TFLite's int16 kernel needs",
                       what, real);
    return RL_OK;
}

static rl_status prepare_add_sub(rl_plan *plan, rl_op *op, rl_s16_binary_params *p, float sa, float sb, float so) {
    const int sub = op->code == RL_OP_SUB;
    int32_t la, lb, lo;
    const int pot = op->params.arithmetic.pot_scale_int16 && checked_log2(sa, &la) && checked_log2(sb, &lb) &&
                    checked_log2(so, &lo);
    if (pot) {
        p->kind = sub ? RL_S16_SUB_POT : RL_S16_ADD_POT;
        p->a_shift = la - lo;
        p->b_shift = lb - lo;
        if (!(p->a_shift == 0 || p->b_shift == 0) || p->a_shift > 0 || p->b_shift > 0 || p->a_shift < -31 ||
            p->b_shift < -31)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 %s with power-of-two scales needs one input at the output's "
                           "scale and the other finer (input shifts %d and %d)", sub ? "SUB" : "ADD", p->a_shift,
                           p->b_shift);
        if (!sub && op->prep.bc.contiguous != 1)
            return rl_fail(plan, RL_UNSUPPORTED, "int16 ADD with power-of-two scales does not broadcast in TFLite");
        return RL_OK;
    }
    p->kind = sub ? RL_S16_SUB : RL_S16_ADD;
    p->left_shift = 15;
    const double twice_max = 2.0 * (double)(sa > sb ? sa : sb);
    rl_status s = multiplier_below_one(plan, (double)sa / twice_max, &p->a_multiplier, &p->a_shift, "input 0");
    if (s == RL_OK) s = multiplier_below_one(plan, (double)sb / twice_max, &p->b_multiplier, &p->b_shift, "input 1");
    if (s == RL_OK)
        s = multiplier_below_one(plan, twice_max / ((double)(1 << 15) * (double)so), &p->out_multiplier, &p->out_shift,
                                 "output");
    return s;
}

rl_status rl_prepare_binary_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    const int code = op->code;
    if (code != RL_OP_ADD && code != RL_OP_SUB && code != RL_OP_MUL && code != RL_OP_DIV && code != RL_OP_MAXIMUM &&
        code != RL_OP_MINIMUM)
        return rl_fail(plan, RL_UNSUPPORTED, "no int16 kernel for this op (ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM)");
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    const rl_tensor *all[3] = {a, b, output};
    static const char *const names[3] = {"int16 input 0", "int16 input 1", "int16 output"};
    for (int i = 0; i < 3 && s == RL_OK; ++i) {
        s = rl_expect_per_tensor_quantization(plan, all[i], names[i]);
        if (s == RL_OK && rl_tensor_zero_point(all[i], 0) != 0)
            s = rl_fail(plan, RL_UNSUPPORTED, "%s has zero point %d; TFLite's 16x8 mode needs 0", names[i],
                        rl_tensor_zero_point(all[i], 0));
    }
    if (s == RL_OK) s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc);
    if (s != RL_OK) return s;
    rl_s16_binary_state *st = (rl_s16_binary_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    rl_s16_binary_params *p = &st->p;
    p->act_min = -32768;
    p->act_max = 32767;
    if (code == RL_OP_MAXIMUM || code == RL_OP_MINIMUM) {
        p->kind = code == RL_OP_MAXIMUM ? RL_S16_MAX : RL_S16_MIN;
    } else {
        if ((s = rl_quantized_activation_range(plan, op->params.arithmetic.activation, output, &p->act_min,
                                               &p->act_max)) != RL_OK)
            return s;
        const float sa = rl_tensor_scale(a, 0), sb = rl_tensor_scale(b, 0), so = rl_tensor_scale(output, 0);
        if (code == RL_OP_DIV) {
            rl_s8_div_params *d = &st->div;
            d->act_min = p->act_min;
            d->act_max = p->act_max;
            const float ratio = sa / (sb * so); /* in float, as TFLite's Prepare */
            /* past 15 the final shift of an int16 quotient would be a left one, which TFLite's kernel does not
             * take */
            if (rl_quantize_multiplier((double)ratio, &d->output_multiplier, &d->output_shift) || d->output_shift > 15)
                return rl_fail(plan, RL_UNSUPPORTED, "the int16 DIV scale ratio %g is out of TFLite's range",
                               (double)ratio);
            op->run = run_div_s16;
            return RL_OK;
        }
        if (code == RL_OP_MUL) {
            p->kind = RL_S16_MUL;
            const double real = (double)(sa * sb / so); /* in float, as TFLite's Prepare computes it */
            if (rl_quantize_multiplier(real, &p->out_multiplier, &p->out_shift) || p->out_shift > 30)
                return rl_fail(plan, RL_UNSUPPORTED, "int16 MUL rescale %g is outside TFLite's range", real);
        } else if ((s = prepare_add_sub(plan, op, p, sa, sb, so)) != RL_OK) {
            return s;
        }
    }
    const int general_add_sub = p->kind == RL_S16_ADD || p->kind == RL_S16_SUB;
    /* LiteRT 2.3 runs a same-shape general ADD on its optimized int16 kernel (one rounding of the inputs in blocks
     * of 16) and broadcasts and SUB on the reference one (measured on x86). */
    p->one_rounding_blocks = p->kind == RL_S16_ADD && op->prep.bc.contiguous == 1;
    const int64_t sa = op->prep.bc.a_strides[7], sb = op->prep.bc.b_strides[7];
    const int rows = op->prep.bc.contiguous == 1 || ((sa == 0 || sa == 1) && (sb == 0 || sb == 1));
    if (general_add_sub && rows && op->prep.bc.contiguous != 1)
        rl_request_arena_scratch(op, 2 * sizeof(int16_t) * (size_t)(sa + sb < 2 ? op->prep.bc.out_dims[7] : 1));
    op->run = general_add_sub && rows ? run_addsub_s16 : run_binary_s16;
    return RL_OK;
}

/* FLOOR_DIV and FLOOR_MOD on int16: TFLite computes them on the raw values (no rescaling), so rillet does. */
static rl_status run_floor_div_mod_s16(rl_plan *plan, rl_op *op) {
    if (s16_floor_div_mod_ref(op->code == RL_OP_FLOOR_MOD, &op->prep.bc, (const int16_t *)rl_input(plan, op, 0)->data,
                              (const int16_t *)rl_input(plan, op, 1)->data, (int16_t *)rl_output(plan, op, 0)->data))
        return rl_fail(plan, RL_INVALID, "int16 %s by zero", op->code == RL_OP_FLOOR_MOD ? "FLOOR_MOD" : "FLOOR_DIV");
    return RL_OK;
}

rl_status rl_prepare_floor_div_mod_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *a = rl_input(plan, op, 0), *b = rl_input(plan, op, 1);
    rl_tensor *output = rl_output(plan, op, 0);
    if (op->code != RL_OP_FLOOR_DIV && op->code != RL_OP_FLOOR_MOD)
        return rl_fail(plan, RL_UNSUPPORTED, "no int16 kernel for this op (FLOOR_DIV, FLOOR_MOD)");
    rl_status s = rl_expect_dtype(plan, b, "input 1", RL_INT16);
    if (s == RL_OK) s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = rl_broadcast_shapes(plan, &a->shape, &b->shape, &output->shape, &op->prep.bc);
    if (s != RL_OK) return s;
    op->run = run_floor_div_mod_s16;
    return RL_OK;
}
