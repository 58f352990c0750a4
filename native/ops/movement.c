/* movement.c — CONCATENATION, PACK, TRANSPOSE, STRIDED_SLICE, SLICE, GATHER, CAST: any dtype. */
#include <string.h>

#include "bands.h"
#include "conv_gemm.h" /* rl_pool_for */
#include "ops.h"

static int32_t normalize_axis(int32_t axis, int32_t rank) { return axis < 0 ? axis + rank : axis; }

static void dims_of(const rl_shape *s, int64_t *dims) {
    for (int32_t d = 0; d < s->rank; ++d) dims[d] = s->dims[d];
}

/* CONCATENATION and PACK: outer blocks of each input laid side by side. */
rl_status rl_prepare_concatenation(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, op->n_inputs);
    if (s != RL_OK) return s;
    rl_tensor *first = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    const int pack = op->code == RL_OP_PACK;
    const int32_t rank = first->shape.rank + (pack ? 1 : 0);
    const int32_t raw_axis = pack ? op->params.pack.axis : op->params.concatenation.axis;
    const int32_t axis = normalize_axis(raw_axis, rank);
    if (axis < 0 || axis >= rank) return rl_fail(plan, RL_INVALID, "axis %d is outside a rank-%d result", raw_axis, rank);
    if (rank > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "output rank is above %d", RL_MAX_DIMS);
    if ((s = rl_expect_dtype(plan, output, "output", first->dtype)) != RL_OK) return s;
    int64_t total = 0; /* int64: the inputs' sizes along the axis may add past int32 (a WHILE that doubles) */
    for (int32_t i = 0; i < op->n_inputs; ++i) {
        const rl_tensor *t = rl_input(plan, op, i);
        if (!t) return rl_fail(plan, RL_INVALID, "input %d is missing", i);
        if (t->dtype != first->dtype) return rl_fail(plan, RL_INVALID, "input %d is %s, input 0 is %s", i, rl_dtype_name(t->dtype), rl_dtype_name(first->dtype));
        if (t->shape.rank != first->shape.rank) return rl_fail(plan, RL_INVALID, "input %d has rank %d, input 0 rank %d", i, t->shape.rank, first->shape.rank);
        for (int32_t d = 0; d < t->shape.rank; ++d)
            if ((pack || d != axis) && t->shape.dims[d] != first->shape.dims[d])
                return rl_fail(plan, RL_INVALID, "input %d has dimension %d of size %d, input 0 of size %d", i, d, t->shape.dims[d], first->shape.dims[d]);
        total += pack ? 1 : t->shape.dims[axis];
        if (total > INT32_MAX)
            return rl_fail(plan, RL_INVALID, "the output's dimension %d would hold more than 2^31 - 1 elements", axis);
        /* int8 inputs quantized unlike the output are refused as LiteRT 2.3 refuses them with every resolver:
         * XNNPACK does not take them, and TFLite's builtin int8 CONCATENATION requires each input's scale and
         * zero point to equal the output's (only its uint8 kernel requantizes). */
        if (t->dtype == RL_INT8 && (rl_tensor_scale(t, 0) != rl_tensor_scale(output, 0) ||
                                    rl_tensor_zero_point(t, 0) != rl_tensor_zero_point(output, 0)))
            return rl_fail(plan, RL_UNSUPPORTED, "int8 input %d is quantized unlike the output (scale %g zero point %d, "
                           "output %g and %d), which TFLite does not allow either", i, (double)rl_tensor_scale(t, 0), rl_tensor_zero_point(t, 0),
                           (double)rl_tensor_scale(output, 0), rl_tensor_zero_point(output, 0));
    }
    if (pack) {
        output->shape.rank = rank;
        for (int32_t d = 0, k = 0; d < rank; ++d) output->shape.dims[d] = d == axis ? (int32_t)total : first->shape.dims[k++];
    } else {
        output->shape = first->shape;
        output->shape.dims[axis] = (int32_t)total;
        if ((s = rl_activation_range(plan, op->params.concatenation.activation, &op->prep.act_min, &op->prep.act_max)) != RL_OK) return s;
        if (op->params.concatenation.activation != RL_ACT_NONE && first->dtype != RL_FLOAT32)
            return rl_fail(plan, RL_UNSUPPORTED, "fused activation on %s", rl_dtype_name(first->dtype));
    }
    op->prep.outer = 1;
    for (int32_t d = 0; d < axis; ++d) op->prep.outer *= output->shape.dims[d];
    op->prep.axis = axis;
    return RL_OK;
}

rl_status rl_eval_concatenation(rl_plan *plan, rl_op *op) {
    rl_tensor *output = rl_output(plan, op, 0);
    const size_t elem = rl_dtype_size(output->dtype);
    char *dst = (char *)output->data;
    /* Input by input, its block of every outer index in turn: each input's block size is worked out once, not
     * once per outer index (a rotary embedding's halves are 2 x 128 blocks of 32 floats). */
    const int64_t outer = op->prep.outer;
    const size_t out_block = outer ? (size_t)(rl_shape_count(&output->shape) / outer) * elem : 0;
    size_t offset = 0;
    for (int32_t i = 0; i < op->n_inputs && outer > 0; ++i) {
        const rl_tensor *t = rl_input(plan, op, i);
        const size_t block = (size_t)(rl_shape_count(&t->shape) / outer) * elem;
        const char *src = (const char *)t->data;
        for (int64_t o = 0; o < outer; ++o) memcpy(dst + (size_t)o * out_block + offset, src + (size_t)o * block, block);
        offset += block;
    }
    if (op->code == RL_OP_CONCATENATION && op->params.concatenation.activation != RL_ACT_NONE) {
        float *y = (float *)output->data;
        const int64_t n = rl_shape_count(&output->shape);
        for (int64_t i = 0; i < n; ++i) y[i] = y[i] < op->prep.act_min ? op->prep.act_min : (y[i] > op->prep.act_max ? op->prep.act_max : y[i]);
    }
    return RL_OK;
}

/* A transpose's bands: heading a segment, the simplified layout's; ending one scattered, the input's first axis
 * longer than 1 (`axis`, a projection's tokens) cut into the band's indices, each index's block of the later
 * input axes copied to its places in the output (runs of the last axis where it stays last). */
typedef struct {
    rl_transpose_layout layout;
    int32_t rank, axis;
    size_t elem, run;            /* run: elements copied at a time (the last axis when it stays last, else 1) */
    int64_t in_dims[RL_MAX_DIMS], out_strides[RL_MAX_DIMS]; /* per input axis: its size, its output stride */
} rl_transpose_state;

/* Heading a segment: output indices [first, first + count) of the layout's outermost axis (attention's heads
 * merged back: [heads, tokens, width] to [tokens, heads, width], whose tokens the RESHAPE and the output
 * projection after it then carry on with). */
static void run_transpose_rows(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    xx_transpose_range__scalar(&((const rl_transpose_state *)op->state)->layout, (int64_t)first, (int64_t)count,
                               rl_input(plan, op, 0)->data, rl_output(plan, op, 0)->data,
                               plan->kernels->x32_transpose_2d);
}

/* Ending a segment scattered (bands.h): the input's pixels [first, first + count), whole indices of `axis`
 * (attention's heads split from a projection's tokens, [tokens, heads, width] to [heads, tokens, width] or to
 * [heads, width, tokens], in the band that computed those tokens). */
static void run_transpose_scattered(rl_plan *plan, const rl_op *op, size_t first, size_t count) {
    const rl_transpose_state *st = (const rl_transpose_state *)op->state;
    const rl_tensor *input = rl_input(plan, op, 0);
    const size_t pixel = rl_band_pixel_elements(op, input), per_index = op->band_scatter_granule;
    const char *x = (const char *)input->data;
    char *y = (char *)rl_output(plan, op, 0)->data;
    const int32_t last = st->rank - 1;
    const size_t elem = st->elem;
    /* A step copies the input's last axis: whole where it stays last (one run), else element by element to its
     * output stride (a key's [tokens, heads, width] to [heads, width, tokens]: copied a byte at a time under an
     * odometer step per element, this was 22 instructions an element, a tenth of BERT-tiny's invoke on two
     * threads). The odometer then steps the axes between `axis` and the last. */
    const int whole = st->run > 1;
    const size_t row = last > st->axis ? (size_t)st->in_dims[last] : 1, steps = per_index / row;
    const size_t stride = (size_t)st->out_strides[last] * elem;
    for (size_t i = first * pixel / per_index; i < (first + count) * pixel / per_index; ++i) {
        int64_t index[RL_MAX_DIMS] = {0}, out = (int64_t)i * st->out_strides[st->axis];
        const char *from = x + i * per_index * elem;
        for (size_t b = 0; b < steps; ++b, from += row * elem) {
            char *to = y + (size_t)out * elem;
            if (whole) {
                memcpy(to, from, row * elem);
            } else if (elem == 4) { /* fixed-size copies: one load and one store each */
                for (size_t t = 0; t < row; ++t) memcpy(to + t * stride, from + 4 * t, 4);
            } else if (elem == 1) {
                for (size_t t = 0; t < row; ++t) to[t * stride] = from[t];
            } else if (elem == 2) {
                for (size_t t = 0; t < row; ++t) memcpy(to + t * stride, from + 2 * t, 2);
            } else {
                for (size_t t = 0; t < row; ++t) memcpy(to + t * stride, from + 8 * t, 8);
            }
            for (int32_t d = last - 1; d > st->axis; --d) {
                out += st->out_strides[d];
                if (++index[d] < st->in_dims[d]) break;
                out -= st->out_strides[d] * st->in_dims[d];
                index[d] = 0;
            }
        }
    }
}

rl_status rl_prepare_transpose(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *perm = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, perm, "perm")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    if (rl_shape_count(&perm->shape) != rank) return rl_fail(plan, RL_INVALID, "perm has %lld entries, input rank %d", (long long)rl_shape_count(&perm->shape), rank);
    int32_t seen[RL_MAX_DIMS] = {0};
    output->shape.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
        int64_t p = rl_read_index(perm, d);
        if (p < 0) p += rank;
        if (p < 0 || p >= rank || seen[p]) return rl_fail(plan, RL_INVALID, "perm is not a permutation of 0..%d", rank - 1);
        seen[p] = 1;
        op->prep.perm[d] = (int32_t)p;
        output->shape.dims[d] = input->shape.dims[p];
    }
    dims_of(&input->shape, op->prep.dims);
    /* It reads its input whole, so it only heads a segment (not pointwise), its units the outermost axis, or
     * ends one scattered. */
    const size_t elem = rl_dtype_size(input->dtype);
    if (plan->pool && (elem == 1 || elem == 2 || elem == 4 || elem == 8) && rl_shape_count(&input->shape) > 0) {
        rl_transpose_state *st = (rl_transpose_state *)rl_op_state(plan, op, sizeof *st);
        if (!st) return RL_NO_MEMORY;
        xx_transpose_layout(rank, op->prep.dims, op->prep.perm, elem, &st->layout);
        if (st->layout.dims[0] >= 2) {
            op->band_rows = (size_t)st->layout.dims[0];
            op->band_row_pixels = 1;
            op->run_rows = run_transpose_rows;
        }
        st->rank = rank;
        st->elem = elem;
        st->axis = 0;
        while (st->axis < rank - 1 && input->shape.dims[st->axis] == 1) ++st->axis;
        int64_t stride = 1;
        for (int32_t j = rank - 1; j >= 0; --j) { /* output position j holds input axis perm[j] */
            st->out_strides[op->prep.perm[j]] = stride;
            stride *= output->shape.dims[j];
        }
        size_t per_index = 1;
        for (int32_t d = 0; d < rank; ++d) {
            st->in_dims[d] = input->shape.dims[d];
            if (d > st->axis) per_index *= (size_t)input->shape.dims[d];
        }
        st->run = op->prep.perm[rank - 1] == rank - 1 && rank - 1 > st->axis ? (size_t)input->shape.dims[rank - 1] : 1;
        op->band_scatter_granule = per_index;
        op->run_rows_scattered = run_transpose_scattered;
    }
    return RL_OK;
}

typedef struct {
    rl_transpose_layout layout;
    const void *x;
    void *y;
    rl_x32_transpose_2d_fn x32_transpose_2d;
} rl_transpose_job;

static void transpose_tile(void *context, size_t i, size_t j, size_t tile_i, size_t tile_j) {
    (void)j;
    (void)tile_j;
    const rl_transpose_job *job = (const rl_transpose_job *)context;
    xx_transpose_range__scalar(&job->layout, (int64_t)i, (int64_t)tile_i, job->x, job->y, job->x32_transpose_2d);
}

/* Transposes of 8192 elements and more (RL_ELEMENT_WORK: a copy costs about a conversion) split the output's
 * outermost (merged) axis across the plan's threads: each part is the same copy, so the bytes do not depend
 * on the thread count. */
rl_status rl_eval_transpose(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    const size_t elem = rl_dtype_size(input->dtype);
    void *y = rl_output(plan, op, 0)->data;
    if (elem != 1 && elem != 2 && elem != 4 && elem != 8) {
        xx_transpose__scalar(input->shape.rank, op->prep.dims, op->prep.perm, elem, input->data, y,
                             plan->kernels->x32_transpose_2d);
        return RL_OK;
    }
    rl_transpose_job job = {.x = input->data, .y = y, .x32_transpose_2d = plan->kernels->x32_transpose_2d};
    xx_transpose_layout(input->shape.rank, op->prep.dims, op->prep.perm, elem, &job.layout);
    if (job.layout.count == 0) return RL_OK;
    const size_t outer = (size_t)job.layout.dims[0];
    rl_threadpool *pool = outer > 1 ? rl_pool_for(plan, (size_t)job.layout.count * RL_ELEMENT_WORK) : NULL;
    const size_t want = RL_TILES_PER_THREAD * (size_t)rl_threadpool_threads(pool);
    rl_parallelize_2d_tile_2d(pool, transpose_tile, &job, outer, 1, pool ? (outer + want - 1) / want : outer, 1);
    return RL_OK;
}

static int32_t clamp32(int64_t v, int64_t lo, int64_t hi) { return (int32_t)(v < lo ? lo : (v > hi ? hi : v)); }

rl_status rl_prepare_strided_slice(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 4, 4);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *begin = rl_input(plan, op, 1), *end = rl_input(plan, op, 2);
    rl_tensor *strides = rl_input(plan, op, 3), *output = rl_output(plan, op, 0);
    const rl_strided_slice_params *p = &op->params.strided_slice;
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, begin, "begin")) != RL_OK) return s;
    if ((s = rl_known_indices(plan, end, "end")) != RL_OK) return s;
    if ((s = rl_known_indices(plan, strides, "strides")) != RL_OK) return s;
    if (p->ellipsis_mask || p->new_axis_mask)
        return rl_fail(plan, RL_UNSUPPORTED, "ellipsis_mask and new_axis_mask are not supported");
    const int32_t rank = input->shape.rank;
    const int64_t n = rl_shape_count(&begin->shape);
    if (n > rank || rl_shape_count(&end->shape) != n || rl_shape_count(&strides->shape) != n)
        return rl_fail(plan, RL_INVALID, "begin, end and strides need the same length, at most the rank %d", rank);
    output->shape.rank = 0;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t dim = input->shape.dims[d];
        int64_t stride = d < n ? rl_read_index(strides, d) : 1, start, stop;
        if (stride == 0) return rl_fail(plan, RL_INVALID, "stride of axis %d is 0", d);
        const int shrink = d < n && (p->shrink_axis_mask >> d) & 1;
        if (d >= n || (p->begin_mask >> d) & 1) { /* TFLite lets begin_mask win over shrink_axis_mask */
            start = stride > 0 ? 0 : dim - 1;
        } else {
            start = rl_read_index(begin, d);
            if (start < 0) start += dim;
            start = stride > 0 ? clamp32(start, 0, dim) : clamp32(start, -1, dim - 1);
        }
        if (shrink) {
            int64_t b = (p->begin_mask >> d) & 1 ? 0 : rl_read_index(begin, d);
            if (b < 0) b += dim;
            if (b < 0 || b >= dim) return rl_fail(plan, RL_INVALID, "shrunk axis %d: index out of range", d);
            start = b;
            stop = b + 1;
            stride = 1;
        } else if (d >= n || (p->end_mask >> d) & 1) {
            stop = stride > 0 ? dim : -1;
        } else {
            stop = rl_read_index(end, d);
            if (p->offset) stop += rl_read_index(begin, d);
            if (stop < 0) stop += dim;
            stop = stride > 0 ? clamp32(stop, 0, dim) : clamp32(stop, -1, dim - 1);
        }
        int64_t size = stride > 0 ? (stop - start + stride - 1) / stride : (start - stop - stride - 1) / -stride;
        if (size < 0) size = 0;
        op->prep.begin[d] = (int32_t)start;
        op->prep.stride[d] = (int32_t)stride;
        op->prep.out_dims[d] = size;
        if (!shrink) output->shape.dims[output->shape.rank++] = (int32_t)size;
    }
    dims_of(&input->shape, op->prep.dims);
    return RL_OK;
}

rl_status rl_prepare_slice(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 3, 3);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *begin = rl_input(plan, op, 1), *size = rl_input(plan, op, 2);
    rl_tensor *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, output, "output", input->dtype)) != RL_OK) return s;
    if ((s = rl_known_indices(plan, begin, "begin")) != RL_OK) return s;
    if ((s = rl_known_indices(plan, size, "size")) != RL_OK) return s;
    const int32_t rank = input->shape.rank;
    if (rl_shape_count(&begin->shape) != rank || rl_shape_count(&size->shape) != rank)
        return rl_fail(plan, RL_INVALID, "begin and size need %d entries", rank);
    output->shape.rank = rank;
    for (int32_t d = 0; d < rank; ++d) {
        const int64_t b = rl_read_index(begin, d), dim = input->shape.dims[d];
        int64_t n = rl_read_index(size, d);
        if (n == -1) n = dim - b;
        if (b < 0 || n < 0 || b + n > dim)
            return rl_fail(plan, RL_INVALID, "axis %d: begin %lld size %lld do not fit in %lld", d, (long long)b, (long long)n, (long long)dim);
        op->prep.begin[d] = (int32_t)b;
        op->prep.stride[d] = 1;
        op->prep.out_dims[d] = n;
        output->shape.dims[d] = (int32_t)n;
    }
    dims_of(&input->shape, op->prep.dims);
    return RL_OK;
}

rl_status rl_eval_strided_slice(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    xx_strided_slice_ref(input->shape.rank, op->prep.dims, op->prep.begin, op->prep.stride, op->prep.out_dims,
                         rl_dtype_size(input->dtype), input->data, rl_output(plan, op, 0)->data);
    return RL_OK;
}

rl_status rl_prepare_gather(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 2, 2);
    if (s != RL_OK) return s;
    rl_tensor *params = rl_input(plan, op, 0), *indices = rl_input(plan, op, 1), *output = rl_output(plan, op, 0);
    if ((s = rl_expect_dtype(plan, output, "output", params->dtype)) != RL_OK) return s;
    if (indices->dtype != RL_INT32 && indices->dtype != RL_INT64)
        return rl_fail(plan, RL_INVALID, "indices must be int32 or int64, are %s", rl_dtype_name(indices->dtype));
    if (op->params.gather.batch_dims != 0) return rl_fail(plan, RL_UNSUPPORTED, "batch_dims %d is not supported", op->params.gather.batch_dims);
    const int32_t rank = params->shape.rank, axis = normalize_axis(op->params.gather.axis, rank);
    if (axis < 0 || axis >= rank) return rl_fail(plan, RL_INVALID, "axis %d is outside a rank-%d input", op->params.gather.axis, rank);
    if (rank - 1 + indices->shape.rank > RL_MAX_DIMS) return rl_fail(plan, RL_UNSUPPORTED, "output rank is above %d", RL_MAX_DIMS);
    output->shape.rank = 0;
    op->prep.outer = 1;
    op->prep.inner = 1;
    for (int32_t d = 0; d < axis; ++d) {
        output->shape.dims[output->shape.rank++] = params->shape.dims[d];
        op->prep.outer *= params->shape.dims[d];
    }
    for (int32_t d = 0; d < indices->shape.rank; ++d) output->shape.dims[output->shape.rank++] = indices->shape.dims[d];
    for (int32_t d = axis + 1; d < rank; ++d) {
        output->shape.dims[output->shape.rank++] = params->shape.dims[d];
        op->prep.inner *= params->shape.dims[d];
    }
    op->prep.axis = axis;
    return RL_OK;
}

rl_status rl_eval_gather(rl_plan *plan, rl_op *op) {
    const rl_tensor *params = rl_input(plan, op, 0), *indices = rl_input(plan, op, 1);
    if (xx_gather_ref(op->prep.outer, params->shape.dims[op->prep.axis], op->prep.inner, rl_shape_count(&indices->shape),
                      indices->data, indices->dtype == RL_INT64, rl_dtype_size(params->dtype), params->data,
                      rl_output(plan, op, 0)->data))
        return rl_fail(plan, RL_INVALID, "an index is outside [0, %d)", params->shape.dims[op->prep.axis]);
    return RL_OK;
}

rl_status rl_prepare_cast(rl_plan *plan, rl_op *op) {
    rl_status s = rl_expect_inputs(plan, op, 1, 1);
    if (s != RL_OK) return s;
    rl_tensor *input = rl_input(plan, op, 0), *output = rl_output(plan, op, 0);
    if (rl_dtype_size(output->dtype) == 0) return rl_fail(plan, RL_UNSUPPORTED, "cannot cast to %s", rl_dtype_name(output->dtype));
    output->shape = input->shape;
    return RL_OK;
}

rl_status rl_eval_cast(rl_plan *plan, rl_op *op) {
    const rl_tensor *input = rl_input(plan, op, 0);
    rl_tensor *output = rl_output(plan, op, 0);
    if (xx_cast_ref(input->dtype, output->dtype, rl_shape_count(&input->shape), input->data, output->data))
        return rl_fail(plan, RL_UNSUPPORTED, "cannot cast %s to %s", rl_dtype_name(input->dtype), rl_dtype_name(output->dtype));
    return RL_OK;
}
