/* resize_int8.c — int8 RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: quantization checks.
 *
 * LiteRT's default Interpreter runs nearest neighbour in TFLite's builtin kernel, by its optimized 16.16
 * fixed-point index unless align_corners or half_pixel_centers (s8_resize_ref.c); bilinear goes to XNNPACK when
 * the file declares the output 4-D and the size constant (resize.c; s8_ibilinear__scalar.c), otherwise to
 * TFLite's integer kernel with 1/1024 weights (s8_resize_ref.c). Neither rescales: TFLite ignores the output's quantization and writes the input's values,
 * so rillet refuses an output quantized unlike the input rather than give it wrong scale.
 */
#include "ops.h"

rl_status rl_prepare_resize_s8(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    rl_status s;
    if ((s = rl_expect_dtype(plan, out, "output", RL_INT8)) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, in, "input")) != RL_OK) return s;
    if ((s = rl_expect_per_tensor_quantization(plan, out, "output")) != RL_OK) return s;
    if (rl_tensor_scale(in, 0) != rl_tensor_scale(out, 0) || rl_tensor_zero_point(in, 0) != rl_tensor_zero_point(out, 0))
        return rl_fail(plan, RL_UNSUPPORTED, "int8 resize needs the output quantized as the input (scale %g zero point %d), "
                       "has scale %g zero point %d (TFLite would not rescale)", (double)rl_tensor_scale(in, 0),
                       rl_tensor_zero_point(in, 0), (double)rl_tensor_scale(out, 0), rl_tensor_zero_point(out, 0));
    const int32_t *d = in->shape.dims;
    if (d[1] > (1 << 20) || d[2] > (1 << 20))
        return rl_fail(plan, RL_UNSUPPORTED, "int8 resize of a %dx%d input: sides past 2^20 overflow TFLite's "
                       "fixed-point coordinates", d[1], d[2]);
    return RL_OK;
}

rl_status rl_eval_resize_s8(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    const int32_t *d = in->shape.dims;
    if (op->code == RL_OP_RESIZE_BILINEAR)
        s8_resize_bilinear_ref(d[0], d[1], d[2], d[3], out->shape.dims[1], out->shape.dims[2],
                               op->params.resize.align_corners, op->params.resize.half_pixel_centers,
                               (const int8_t *)in->data, (int8_t *)out->data);
    else
        s8_resize_nearest_ref(d[0], d[1], d[2], d[3], out->shape.dims[1], out->shape.dims[2],
                              op->params.resize.align_corners, op->params.resize.half_pixel_centers,
                              (const int8_t *)in->data, (int8_t *)out->data);
    return RL_OK;
}
