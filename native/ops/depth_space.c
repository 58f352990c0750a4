/* depth_space.c — DEPTH_TO_SPACE and SPACE_TO_DEPTH, NHWC, any dtype: blocks of block_size x block_size
 * pixels moved to and from channels, as TFLite lays them out (the block's row, then its column, then the
 * channel). int8 outputs keep the input's quantization. */
#include <string.h>

#include "ops.h"

typedef struct {
    int32_t to_space, block;
    int32_t batch, in_h, in_w, in_c;
    size_t elem;
} rl_depth_space_state;

RL_STATIC_ASSERT(sizeof(rl_depth_space_state) <= 64, "rl_depth_space_state is a small struct");

/* The loop over the output's rows lives here; each step copies one run of contiguous channels. */
static rl_status run_depth_space(rl_plan *plan, rl_op *op) {
    const rl_depth_space_state *st = (const rl_depth_space_state *)op->state;
    const char *in = (const char *)rl_input(plan, op, 0)->data;
    char *out = (char *)rl_output(plan, op, 0)->data;
    const size_t bs = (size_t)st->block, e = st->elem;
    if (st->to_space) { /* in [b, h, w, bs*bs*c] -> out [b, h*bs, w*bs, c] */
        const size_t c = (size_t)st->in_c / (bs * bs), ow = (size_t)st->in_w * bs;
        for (size_t b = 0; b < (size_t)st->batch; ++b)
            for (size_t h = 0; h < (size_t)st->in_h; ++h)
                for (size_t w = 0; w < (size_t)st->in_w; ++w)
                    for (size_t dy = 0; dy < bs; ++dy) {
                        const char *from = in + (((b * st->in_h + h) * st->in_w + w) * st->in_c + dy * bs * c) * e;
                        char *to = out + (((b * st->in_h * bs + h * bs + dy) * ow) + w * bs) * c * e;
                        memcpy(to, from, bs * c * e); /* the block row's bs pixels are contiguous both sides */
                    }
    } else { /* in [b, h*bs, w*bs, c] -> out [b, h, w, bs*bs*c] */
        const size_t c = (size_t)st->in_c, oh = (size_t)st->in_h / bs, ow = (size_t)st->in_w / bs;
        for (size_t b = 0; b < (size_t)st->batch; ++b)
            for (size_t h = 0; h < oh; ++h)
                for (size_t w = 0; w < ow; ++w)
                    for (size_t dy = 0; dy < bs; ++dy) {
                        const char *from = in + (((b * st->in_h + h * bs + dy) * st->in_w) + w * bs) * c * e;
                        char *to = out + (((b * oh + h) * ow + w) * bs * bs * c + dy * bs * c) * e;
                        memcpy(to, from, bs * c * e);
                    }
    }
    return RL_OK;
}

rl_status rl_prepare_depth_space(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    const rl_tensor *in = rl_input(plan, op, 0);
    rl_tensor *out = rl_output(plan, op, 0);
    const int to_space = op->code == RL_OP_DEPTH_TO_SPACE;
    const int32_t bs = op->params.depth_space.block_size;
    if (in->shape.rank != 4) return rl_fail(plan, RL_INVALID, "input must be 4-D NHWC, has rank %d", in->shape.rank);
    if (bs < 1 || bs > 4096) return rl_fail(plan, RL_INVALID, "block_size %d must be 1 to 4096", bs);
    if ((s = rl_expect_dtype(plan, out, "output", in->dtype)) != RL_OK) return s;
    if ((s = rl_expect_quantized_alike(plan, out, "output", in, "input")) != RL_OK) return s;
    const int32_t n = in->shape.dims[0], h = in->shape.dims[1], w = in->shape.dims[2], c = in->shape.dims[3];
    out->shape.rank = 4;
    out->shape.dims[0] = n;
    if (to_space) {
        if (c % (bs * bs) != 0) return rl_fail(plan, RL_INVALID, "%d channels are not a multiple of %d", c, bs * bs);
        out->shape.dims[1] = h * bs, out->shape.dims[2] = w * bs, out->shape.dims[3] = c / (bs * bs);
    } else {
        if (h % bs != 0 || w % bs != 0)
            return rl_fail(plan, RL_INVALID, "height %d and width %d must be multiples of %d", h, w, bs);
        out->shape.dims[1] = h / bs, out->shape.dims[2] = w / bs, out->shape.dims[3] = c * bs * bs;
    }
    rl_depth_space_state *st = (rl_depth_space_state *)rl_op_state(plan, op, sizeof *st);
    if (!st) return RL_NO_MEMORY;
    *st = (rl_depth_space_state){.to_space = to_space, .block = bs, .batch = n, .in_h = h, .in_w = w, .in_c = c,
                                 .elem = rl_dtype_size(in->dtype)};
    op->run = run_depth_space;
    return RL_OK;
}

rl_status rl_eval_depth_space(rl_plan *plan, rl_op *op) { return run_depth_space(plan, op); }
