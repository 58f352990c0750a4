/* resize_int16.c — RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR of int16 tensors (TFLite's 16x8 mode) on
 * s16_resize_ref.c; resize.c computes the output shape and sends int16 here. Neither rescales, so the output must
 * be quantized as the input. */
#include "ops.h"
#include "s16_elementwise.h"

static rl_status run_resize_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    const int32_t *d = in->shape.dims;
    void (*resize)(int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, int32_t, const int16_t *,
                   int16_t *) = op->code == RL_OP_RESIZE_BILINEAR ? s16_resize_bilinear_ref : s16_resize_nearest_ref;
    resize(d[0], d[1], d[2], d[3], out->shape.dims[1], out->shape.dims[2], op->params.resize.align_corners,
           op->params.resize.half_pixel_centers, (const int16_t *)in->data, (int16_t *)out->data);
    return RL_OK;
}

rl_status rl_prepare_resize_s16(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_status s = rl_expect_dtype(plan, out, "output", RL_INT16);
    if (s == RL_OK && in->q_count > 0) {
        if ((s = rl_expect_per_tensor_quantization(plan, in, "int16 input")) != RL_OK) return s;
        if ((s = rl_expect_per_tensor_quantization(plan, out, "int16 output")) != RL_OK) return s;
        if (rl_tensor_scale(in, 0) != rl_tensor_scale(out, 0) ||
            rl_tensor_zero_point(in, 0) != rl_tensor_zero_point(out, 0))
            return rl_fail(plan, RL_UNSUPPORTED, "int16 resize needs the output quantized as the input (scale %g), has "
                           "scale %g (TFLite would not rescale)", (double)rl_tensor_scale(in, 0),
                           (double)rl_tensor_scale(out, 0));
    }
    if (s != RL_OK) return s;
    const int32_t *d = in->shape.dims;
    if (d[1] > (1 << 20) || d[2] > (1 << 20))
        return rl_fail(plan, RL_UNSUPPORTED, "int16 resize of a %dx%d input: sides past 2^20 overflow TFLite's "
                       "fixed-point coordinates", d[1], d[2]);
    op->run = run_resize_s16;
    return RL_OK;
}
