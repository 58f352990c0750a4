/* resize.c — RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR to a constant size, NHWC float32 (int8: resize_int8.c).
 *
 * LiteRT's default Interpreter hands RESIZE_BILINEAR (float and int8) to XNNPACK when the size is a constant of
 * the model and the output's declared shape in the file is 4-D with positive sides (VisitResizeBilinearNode's
 * checks; its declared sides need not be right, and a placeholder such as (1,) keeps the op in TFLite's kernel).
 * XNNPACK's coordinates and blending differ from TFLite's (int8: by 1 in a few percent of values), so rillet
 * makes the same choice (tests/runtime/test_resize_xnnpack.py sweeps both sides). RESIZE_NEAREST_NEIGHBOR
 * stays in TFLite's kernels in LiteRT 2.3.
 */
#include <stdint.h>

#include "ops.h"

/* Read once, at the first prepare, while the output still has the shape the file declares (later prepares see
 * the shape rillet gave it). */
static int output_declared_4d(rl_op *op, const rl_tensor *output) {
    if (op->params.resize.declared_4d == 0) {
        int positive = output->shape.rank == 4;
        for (int32_t d = 0; d < output->shape.rank && positive; ++d) positive = output->shape.dims[d] > 0;
        op->params.resize.declared_4d = positive ? 1 : -1;
    }
    return op->params.resize.declared_4d == 1;
}

static rl_status run_xnnpack_bilinear(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    const int32_t *d = in->shape.dims, out_h = out->shape.dims[1], out_w = out->shape.dims[2];
    const rl_ibilinear_tap *rows = (const rl_ibilinear_tap *)op->scratch, *cols = rows + out_h;
    if (in->dtype == RL_INT8) {
        const rl_s8_ibilinear_fn blend = plan->kernels->s8_ibilinear;
        const size_t in_row = (size_t)d[2] * (size_t)d[3], out_row = (size_t)out_w * (size_t)d[3];
        const int8_t *x = (const int8_t *)in->data;
        int8_t *y = (int8_t *)out->data;
        for (int32_t b = 0; b < d[0]; ++b, x += (size_t)d[1] * in_row) {
            for (int32_t oy = 0; oy < out_h; ++oy, y += out_row)
                blend((size_t)out_w, (size_t)d[3], x + (size_t)rows[oy].lower * in_row,
                      x + (size_t)rows[oy].upper * in_row, cols, rows[oy].alpha_q11, y);
        }
    } else
        f32_ibilinear__scalar(d[0], d[1], d[2], d[3], out_h, out_w, rows, cols, (const float *)in->data,
                              (float *)out->data);
    return RL_OK;
}

/* XNNPACK's source rows and columns with their weights, once (as its indirection buffer): rows, then columns. */
static rl_status prepare_xnnpack_bilinear(rl_plan *plan, rl_op *op, const rl_tensor *in, int32_t out_h, int32_t out_w) {
    rl_ibilinear_tap *taps = (rl_ibilinear_tap *)rl_op_scratch(plan, op, sizeof *taps * ((size_t)out_h + (size_t)out_w));
    if (!taps) return RL_NO_MEMORY;
    const int32_t ac = op->params.resize.align_corners, hp = op->params.resize.half_pixel_centers;
    for (int32_t o = 0; o < out_h; ++o) xx_ibilinear_coordinate(o, in->shape.dims[1], out_h, ac, hp, &taps[o]);
    for (int32_t o = 0; o < out_w; ++o) xx_ibilinear_coordinate(o, in->shape.dims[2], out_w, ac, hp, &taps[out_h + o]);
    op->run = run_xnnpack_bilinear;
    return RL_OK;
}

rl_status rl_prepare_resize(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *size = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    const int is_s8 = input->dtype == RL_INT8, is_s16 = input->dtype == RL_INT16;
    if (!is_s8 && !is_s16 && (s = rl_expect_dtype(plan, input, "input", RL_FLOAT32)) != RL_OK) return s;
    if (!is_s8 && !is_s16 && (s = rl_expect_dtype(plan, output, "output", RL_FLOAT32)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, size, "size")) != RL_OK) return s;
    if (input->shape.rank != 4) return rl_fail(plan, RL_INVALID, "input must be 4-D NHWC, has rank %d", input->shape.rank);
    if (rl_shape_count(&size->shape) != 2) return rl_fail(plan, RL_INVALID, "size must hold 2 values");
    const int64_t h = rl_read_index(size, 0), w = rl_read_index(size, 1);
    if (h < 1 || w < 1 || h > INT32_MAX || w > INT32_MAX)
        return rl_fail(plan, RL_INVALID, "size %lldx%lld must be positive int32 values", (long long)h, (long long)w);
    /* Every output pixel reads input pixels: an input with no rows or columns has none to read. */
    if (input->shape.dims[1] < 1 || input->shape.dims[2] < 1)
        return rl_fail(plan, RL_INVALID, "input is %dx%d pixels: it has nothing to resize", input->shape.dims[1],
                       input->shape.dims[2]);
    if (op->params.resize.align_corners && op->params.resize.half_pixel_centers)
        return rl_fail(plan, RL_INVALID, "align_corners and half_pixel_centers cannot both be set");
    const int xnnpack = output_declared_4d(op, output) && op->code == RL_OP_RESIZE_BILINEAR && size->file_data;
    output->shape = input->shape;
    output->shape.dims[1] = (int32_t)h;
    output->shape.dims[2] = (int32_t)w;
    if (is_s8 && (s = rl_prepare_resize_s8(plan, op)) != RL_OK) return s;
    if (is_s16) return rl_prepare_resize_s16(plan, op); /* resize_int16.c */
    return xnnpack ? prepare_xnnpack_bilinear(plan, op, input, (int32_t)h, (int32_t)w) : RL_OK;
}

rl_status rl_eval_resize(rl_plan *plan, rl_op *op) {
    const rl_tensor *in = rl_input(plan, op, 0), *out = rl_output(plan, op, 0);
    const int32_t *d = in->shape.dims;
    if (in->dtype == RL_INT8) return rl_eval_resize_s8(plan, op);
    if (op->code == RL_OP_RESIZE_BILINEAR)
        f32_resize_bilinear_ref(d[0], d[1], d[2], d[3], out->shape.dims[1], out->shape.dims[2],
                                op->params.resize.align_corners, op->params.resize.half_pixel_centers,
                                (const float *)in->data, (float *)out->data);
    else
        f32_resize_nearest_ref(d[0], d[1], d[2], d[3], out->shape.dims[1], out->shape.dims[2],
                               op->params.resize.align_corners, op->params.resize.half_pixel_centers,
                               (const float *)in->data, (float *)out->data);
    return RL_OK;
}
