/* transpose_conv.h — what TRANSPOSE_CONV's float driver (transpose_conv.c) and int8 driver
 * (transpose_conv_int8.c) share. */
#ifndef RILLET_TRANSPOSE_CONV_H
#define RILLET_TRANSPOSE_CONV_H

#include "ops.h"

/* Sets the output's shape from output_shape and fills the transposed convolution's geometry (g->in_* is the
 * output, g->out_* the input, padding as TFLite's ComputePaddingHeightWidth); checks the shapes agree. */
rl_status rl_transpose_conv_geometry(rl_plan *plan, rl_op *op, rl_window_geometry *g);
/* After a run: an op whose output_shape is not known at prepare is prepared again before its next run. */
void rl_transpose_conv_ran(rl_plan *plan, rl_op *op);
rl_status rl_prepare_transpose_conv_int8(rl_plan *plan, rl_op *op);

/* What a transposed convolution adds where one tap of one input pixel lands: input pixel `pixel` (of g->out_*),
 * filter tap `tap` (fy * filter_w + fx), into output pixel `target` (of g->in_*). */
typedef void (*rl_transpose_conv_visit)(void *context, int64_t pixel, int32_t tap, int64_t target);

/* Visits every (input pixel, tap) whose output pixel lies inside the output, input pixels in order and taps
 * row by row, as both drivers sum them. */
static inline void rl_transpose_conv_scatter(const rl_window_geometry *g, rl_transpose_conv_visit visit, void *context) {
    int64_t pixel = 0;
    for (int32_t b = 0; b < g->batch; ++b)
        for (int32_t y = 0; y < g->out_h; ++y)
            for (int32_t x = 0; x < g->out_w; ++x, ++pixel)
                for (int32_t fy = 0; fy < g->filter_h; ++fy) {
                    const int64_t oy = (int64_t)y * g->stride_h - g->pad_h + fy; /* hostile strides: no overflow */
                    if (oy < 0 || oy >= g->in_h) continue;
                    for (int32_t fx = 0; fx < g->filter_w; ++fx) {
                        const int64_t ox = (int64_t)x * g->stride_w - g->pad_w + fx;
                        if (ox < 0 || ox >= g->in_w) continue;
                        visit(context, pixel, fy * g->filter_w + fx, ((int64_t)b * g->in_h + oy) * g->in_w + ox);
                    }
                }
}

#endif
