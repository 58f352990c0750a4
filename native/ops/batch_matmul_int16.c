/* batch_matmul_int16.c — BATCH_MATMUL in TFLite's 16x8 mode: int16 x, int8 or int16 y, int16 output, every zero
 * point 0, on its reference kernel (s16_batch_matmul_ref.c says which arithmetic LiteRT uses). matmul.c computes
 * the shapes; batch_matmul_int8.c sends int16 x here. */
#include "ops.h"

typedef struct {
    int32_t multiplier, shift;
} rl_s16_batch_matmul_state;

static rl_status run_batch_matmul_int16(rl_plan *plan, rl_op *op) {
    const rl_s16_batch_matmul_state *st = (const rl_s16_batch_matmul_state *)op->state;
    const rl_batch_matmul_params *p = &op->params.batch_matmul;
    const rl_tensor *y = rl_input(plan, op, 1);
    s16_batch_matmul_ref(&op->prep.bc, op->prep.perm[0], op->prep.perm[1], op->prep.perm[2], p->adj_x, p->adj_y,
                         st->multiplier, st->shift, (const int16_t *)rl_input(plan, op, 0)->data, y->data,
                         y->dtype == RL_INT8, (int16_t *)rl_output(plan, op, 0)->data);
    return RL_OK;
}

static rl_status expect_zero_point_0(rl_plan *plan, const rl_tensor *t, const char *what) {
    rl_status s = rl_expect_per_tensor_quantization(plan, t, what);
    if (s == RL_OK && rl_tensor_zero_point(t, 0) != 0)
        return rl_fail(plan, RL_UNSUPPORTED, "%s has zero point %d; TFLite's 16x8 BATCH_MATMUL needs 0", what,
                       rl_tensor_zero_point(t, 0));
    return s;
}

rl_status rl_prepare_batch_matmul_int16(rl_plan *plan, rl_op *op) {
    const rl_tensor *x = rl_input(plan, op, 0), *y = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if (y->dtype != RL_INT8 && y->dtype != RL_INT16)
        return rl_fail(plan, RL_UNSUPPORTED, "int16 x with %s y has no kernel (int8 or int16 y)", rl_dtype_name(y->dtype));
    rl_status s = rl_expect_dtype(plan, output, "output", RL_INT16);
    if (s == RL_OK) s = expect_zero_point_0(plan, x, "int16 x");
    if (s == RL_OK) s = expect_zero_point_0(plan, y, y->dtype == RL_INT8 ? "int8 y" : "int16 y");
    if (s == RL_OK) s = expect_zero_point_0(plan, output, "int16 output");
    if (s != RL_OK) return s;
    rl_s16_batch_matmul_state *st = (rl_s16_batch_matmul_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    const float product = rl_tensor_scale(x, 0) * rl_tensor_scale(y, 0);
    const double real = (double)product / (double)rl_tensor_scale(output, 0);
    if (rl_quantize_multiplier(real, &st->multiplier, &st->shift) || st->shift < -31 || st->shift > 7)
        return rl_fail(plan, RL_UNSUPPORTED, "requantization scale %g (x * y / output scale) is outside TFLite's "
                       "16-bit range [2^-32, 2^7)", real);
    op->run = run_batch_matmul_int16;
    return RL_OK;
}
