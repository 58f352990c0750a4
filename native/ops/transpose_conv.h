/* transpose_conv.h — what TRANSPOSE_CONV's float driver (transpose_conv.c) and int8 driver
 * (transpose_conv_int8.c) share. */
#ifndef RILLET_TRANSPOSE_CONV_H
#define RILLET_TRANSPOSE_CONV_H

#include "ops.h"

/* Sets the output's shape from output_shape and fills the transposed convolution's geometry (g->in_* is the
 * output, g->out_* the input, padding as TFLite's ComputePaddingHeightWidth); checks the shapes agree. */
rl_status rl_transpose_conv_geometry(rl_plan *plan, rl_op *op, rl_window_geometry *g);
rl_status rl_prepare_transpose_conv_int8(rl_plan *plan, rl_op *op);

#endif
