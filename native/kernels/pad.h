/* pad.h — constant padding (PAD, PADV2) as copies of contiguous runs and fills of the pad value, any element
 * size, on a layout reduced at prepare to the fewest axes. xx_pad_ref (kernels.h) is the specification.
 *
 * An axis that is not padded merges into the axis outside it: its elements are as contiguous in the output as
 * in the input, so the outer axis just grows by its size (a channel pad of [1, 64, 64, 8] is [4096, 8] padded
 * on its last axis, a spatial pad of [1, 64, 64, 8] is [64, 512] padded on both). The innermost axis left is
 * then the shortest run that must be copied alone, and every pad between two runs is one fill. */
#ifndef RILLET_PAD_H
#define RILLET_PAD_H

#include <stddef.h>
#include <stdint.h>

enum { RL_PAD_MAX_AXES = 8 };

typedef struct {
    int32_t axes; /* 1..RL_PAD_MAX_AXES */
    size_t element_bytes;
    int64_t in_dims[RL_PAD_MAX_AXES], out_dims[RL_PAD_MAX_AXES], before[RL_PAD_MAX_AXES];
    int64_t in_strides[RL_PAD_MAX_AXES], out_strides[RL_PAD_MAX_AXES]; /* in elements */
} rl_pad_layout;

/* The reduced layout of padding a tensor of `rank` axes in_dims by before[d] / after[d] elements (rank 0 is one
 * element). An input with no elements reduces to one axis of 0 elements padded by the whole output. */
void rl_pad_layout_of(int32_t rank, const int64_t *in_dims, const int32_t *before, const int32_t *after,
                      size_t element_bytes, rl_pad_layout *layout);

/* Output indices [first, first + count) of the layout's outermost axis (each a block of out_strides[0]
 * elements), every output byte written once; pad_value is one element. */
void xx_pad(const rl_pad_layout *layout, const void *pad_value, const void *x, void *y, int64_t first,
            int64_t count);

#endif
