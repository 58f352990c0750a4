/* pad.c — PAD and PADV2 (constant padding), any dtype: the layout reduced once at prepare (pad.h), then copies
 * of contiguous runs and fills of the pad value, split across the plan's threads by the outermost axis. A pad
 * of channels only is pointwise over an NHWC tensor's pixels (pixel p reads pixel p), so it is offered as a
 * banded op (bands.h) and joins the depthwise or convolution segment around it (MediaPipe's BlazeBlocks pad
 * [1, 64, 64, 8] to 16 channels for their residual ADD). */
#include <string.h>

#include "bands.h"
#include "conv_gemm.h"
#include "pad.h"

typedef struct {
    rl_pad_layout layout;
    int32_t value_input; /* PADV2's constant_values: read at each run (it need not be a constant) */
    unsigned char default_value[16]; /* 0, or an int8 / uint8 input's zero point */
    /* Set by each run for its tiles. */
    const void *x, *value;
    void *y;
} rl_pad_state;

RL_STATIC_ASSERT(sizeof(rl_pad_state) <= 512, "rl_pad_state is a small struct");

static const void *pad_value(rl_plan *plan, const rl_op *op) {
    const rl_pad_state *st = (const rl_pad_state *)op->state;
    return st->value_input ? rl_input(plan, op, 2)->data : st->default_value;
}

/* Banded execution: pixels are the layout's outer axis (a channel pad's layout is [pixels, channels]). */
static void run_pad_pixels(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_pad_state *st = (const rl_pad_state *)op->state;
    xx_pad(&st->layout, pad_value(plan, op), rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data,
           (int64_t)first, (int64_t)count);
}

rl_status rl_prepare_pad(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 3);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *pads = rl_input(plan, op, 1), *value = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, pads, "paddings")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    if (pads->shape.rank != 2 || pads->shape.dims[0] != rank || pads->shape.dims[1] != 2)
        return rl_fail(plan, RL_INVALID, "paddings must be [%d, 2]", rank);
    if (value) {
        if ((s = rl_expect_dtype(plan, value, "constant value", input->dtype)) != RL_OK) return s;
        if (rl_shape_count(&value->shape) != 1) return rl_fail(plan, RL_INVALID, "constant value must have one element");
    }
    const size_t element_bytes = rl_dtype_size(input->dtype);
    rl_pad_state *st = (rl_pad_state *)rl_op_state(plan, op, sizeof(rl_pad_state));
    if (!st) return RL_NO_MEMORY;
    if (element_bytes > sizeof st->default_value)
        return rl_fail(plan, RL_UNSUPPORTED, "%s elements are wider than %zu bytes", rl_dtype_name(input->dtype),
                       sizeof st->default_value);
    int64_t in_dims[RL_MAX_DIMS];
    int32_t before[RL_MAX_DIMS], after[RL_MAX_DIMS];
    output->shape.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t b = rl_read_index(pads, 2 * d), a = rl_read_index(pads, 2 * d + 1);
        if (b < 0 || a < 0) return rl_fail(plan, RL_INVALID, "padding of axis %d is negative", d);
        if (input->shape.dims[d] + b + a > INT32_MAX)
            return rl_fail(plan, RL_INVALID, "padding axis %d makes it longer than 2^31 - 1 elements", d);
        before[d] = (int32_t)b;
        after[d] = (int32_t)a;
        in_dims[d] = input->shape.dims[d];
        output->shape.dims[d] = (int32_t)(input->shape.dims[d] + b + a);
    }
    rl_pad_layout_of(rank, in_dims, before, after, element_bytes, &st->layout);
    st->value_input = value != NULL;
    if (!value && input->q_count > 0 && (input->dtype == RL_INT8 || input->dtype == RL_UINT8))
        st->default_value[0] = (unsigned char)(int8_t)input->q_zero_points[0];
    int channels_only = rank == 4 && st->layout.axes == 2;
    for (int32_t d = 0; d < 3 && channels_only; ++d) channels_only = before[d] == 0 && after[d] == 0;
    if (channels_only) rl_offer_elementwise_rows(op, output, run_pad_pixels);
    return RL_OK;
}

static void pad_rows(void *context, size_t row, size_t unused_j, size_t rows, size_t unused_columns) {
    (void)unused_j;
    (void)unused_columns;
    const rl_pad_state *st = (const rl_pad_state *)context;
    xx_pad(&st->layout, st->value, st->x, st->y, (int64_t)row, (int64_t)rows);
}

rl_status rl_eval_pad(rl_plan *plan, rl_op *op) {
    rl_pad_state *st = (rl_pad_state *)op->state;
    const size_t rows = (size_t)st->layout.out_dims[0];
    if (rows == 0) return RL_OK;
    st->x = rl_input(plan, op, 0)->data;
    st->y = rl_output(plan, op, 0)->data;
    st->value = pad_value(plan, op);
    /* A copy moves about as many bytes per step as a multiply-add reads: the same threshold. */
    const size_t bytes = rows * (size_t)st->layout.out_strides[0] * st->layout.element_bytes;
    rl_parallelize_rows(plan, pad_rows, st, rows, bytes / 4);
    return RL_OK;
}
