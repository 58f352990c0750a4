/* tflite_reader.c — a plan built straight from a .tflite flatbuffer (schema v3), every read checked.
 *
 * rl_plan_build_from_tflite reads one subgraph in two passes. The first reads and checks everything the
 * plan needs (the checks of converter/format's `load` for that subgraph: every table, vtable, field and
 * vector in the file; tensor, buffer and opcode indices in range; a constant's bytes fit its shape), so a
 * malformed file fails before anything is built. The second feeds the plan through the same builders a
 * caller would use (rl_plan_add_tensor, rl_plan_set_quantization, rl_plan_add_op, rl_plan_set_io), with
 * constants pointing into the model's bytes (inline buffers and the offset/size form kept after the
 * flatbuffer). Messages start with what failed, so a caller can name it: "malformed: ..." for the file,
 * "tensor N: ..." for a tensor the plan refused, "no kernel: ..." for an op rillet does not know; op
 * errors set the plan's failed op.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "tflite_reader.h"

/* ---- the model ---- */

/* Schema slots of the tables read here (converter/format/schema.py). */
enum { MODEL_VERSION = 0, MODEL_OPERATOR_CODES = 1, MODEL_BUFFERS = 4 };
enum { CODE_DEPRECATED = 0, CODE_CUSTOM = 1, CODE_BUILTIN = 3, BUILTIN_CUSTOM = 32 };
enum { SUBGRAPH_TENSORS = 0, SUBGRAPH_INPUTS = 1, SUBGRAPH_OUTPUTS = 2 };
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5,
       TENSOR_SPARSITY = 6 };
enum { QUANT_SCALE = 2, QUANT_ZERO_POINT = 3, QUANT_DIMENSION = 6 };
enum { OP_OPCODE = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_CUSTOM = 5, OP_INTERMEDIATES = 8,
       OP_LARGE_CUSTOM_OFFSET = 9, OP_LARGE_CUSTOM_SIZE = 10 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };

typedef struct {
    int32_t type, is_variable;
    rl_fb_vector shape;
    const void *data;
    size_t data_bytes;
    int quantized;
    rl_fb_vector scale, zero_point;
    int32_t quantized_dimension;
    uint64_t sparsity; /* where its SparsityParameters table is, 0 for a dense tensor */
} tensor_info;

typedef struct {
    int32_t code;
    rl_fb_vector inputs, outputs;
    rl_fb_vector custom; /* a custom op's options bytes */
    rl_fb_vector intermediates;
    int32_t options_type;
    uint64_t options_pos;
} op_info;

typedef struct {
    rl_fb fb;
    rl_plan *plan;
    int32_t n_subgraphs, n_codes, n_buffers, n_tensors, n_ops;
    rl_fb_vector buffers;
    int32_t *codes;
    rl_tflite_unknown_ops unknown; /* ops of any subgraph rillet has no kernel for */
    tensor_info *tensors;
    op_info *ops;
    void *scratch; /* decoded indices, scales and zero points on their way to the builders */
    size_t scratch_bytes;
} reader;

static rl_status malformed(reader *r, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static rl_status malformed(reader *r, const char *format, ...) {
    char where[160];
    va_list args;
    va_start(args, format);
    vsnprintf(where, sizeof where, format, args);
    va_end(args);
    r->plan->current_op = -1;
    return rl_fail(r->plan, RL_INVALID, "malformed: %s: %s", where, r->fb.problem ? r->fb.problem : "");
}

static void *scratch(reader *r, size_t bytes) {
    if (bytes > r->scratch_bytes) {
        free(r->scratch);
        r->scratch = malloc(bytes);
        r->scratch_bytes = r->scratch ? bytes : 0;
        if (!r->scratch) rl_fail(r->plan, RL_NO_MEMORY, "out of memory reading the model");
    }
    return r->scratch;
}

/* The tensor indices of an [int] vector lie in [lowest, n_tensors). */
static int indices_in_range(reader *r, const rl_fb_vector *v, int32_t lowest) {
    for (uint32_t i = 0; i < v->count; ++i) {
        const int32_t index = rl_fb_int_at(&r->fb, v, i);
        if (index < lowest || index >= r->n_tensors) return rl_fb_problem(&r->fb, "a tensor index is out of range");
    }
    return 1;
}

static rl_status read_codes(reader *r, const rl_fb_table *model) {
    rl_fb_vector v;
    if (!rl_fb_vector_of(&r->fb, model, MODEL_OPERATOR_CODES, 4, &v, NULL)) return malformed(r, "Model.operator_codes");
    r->n_codes = (int32_t)v.count;
    r->codes = (int32_t *)malloc(sizeof(int32_t) * (v.count + 1));
    if (!r->codes) return rl_fail(r->plan, RL_NO_MEMORY, "out of memory reading the model");
    for (uint32_t i = 0; i < v.count; ++i) {
        rl_fb_table t;
        double deprecated, builtin;
        if (!rl_fb_table_in(&r->fb, &v, i, &t) || !rl_fb_scalar(&r->fb, &t, CODE_DEPRECATED, FB_I8, 0, &deprecated) ||
            !rl_fb_scalar(&r->fb, &t, CODE_BUILTIN, FB_I32, 0, &builtin))
            return malformed(r, "Model.operator_codes[%u]", i);
        /* Codes below 127 may sit in the int8 deprecated field only (older writers), larger ones in the int. */
        r->codes[i] = (int32_t)(deprecated > builtin ? deprecated : builtin);
        rl_fb_vector name;
        if (r->codes[i] == BUILTIN_CUSTOM) { /* a custom op rillet runs gets its internal code (op_registry.c) */
            if (!rl_fb_vector_of(&r->fb, &t, CODE_CUSTOM, 1, &name, NULL))
                return malformed(r, "Model.operator_codes[%u].custom_code", i);
            const int32_t known = rl_custom_op_code((const char *)r->fb.data + name.start, name.count);
            if (known >= 0) r->codes[i] = known;
        }
    }
    return RL_OK;
}

static uint64_t itemsize(int32_t type) {
    static const uint8_t sizes[17] = {4, 2, 4, 1, 8, 0, 1, 2, 8, 1, 8, 16, 8, 0, 0, 4, 2};
    return type >= 0 && type < 17 ? sizes[type] : 0;
}

/* Buffer b's bytes for tensor i (none when it has no data or is empty), checked against its shape. */
static rl_status read_constant(reader *r, int32_t s, int32_t i, uint32_t b, int sparse, tensor_info *info) {
    rl_fb_table t;
    rl_fb_vector data;
    int present;
    uint64_t offset, size;
    if (!rl_fb_table_in(&r->fb, &r->buffers, b, &t) || !rl_fb_vector_of(&r->fb, &t, BUFFER_DATA, 1, &data, &present) ||
        !rl_fb_u64(&r->fb, &t, BUFFER_OFFSET, &offset) || !rl_fb_u64(&r->fb, &t, BUFFER_SIZE, &size))
        return malformed(r, "Model.buffers[%u]", b);
    uint64_t start = data.start, bytes = data.count;
    if (offset > 1) { /* kept after the flatbuffer; 0 and 1 mean inline */
        if (!rl_fb_fits(&r->fb, offset, size)) {
            rl_fb_problem(&r->fb, "its external data reaches past the end of the file");
            return malformed(r, "Model.buffers[%u]", b);
        }
        start = offset, bytes = size, present = 1;
    }
    if (!present || !bytes) return RL_OK;
    const uint64_t width = itemsize(info->type);
    if (!sparse && width) {
        uint64_t expected = width;
        for (uint32_t d = 0; d < info->shape.count && expected; ++d) {
            const int32_t dim = rl_fb_int_at(&r->fb, &info->shape, d);
            const int overflows = dim < 0 || (dim && expected > UINT64_MAX / (uint64_t)dim);
            expected = overflows ? UINT64_MAX : expected * (uint64_t)dim;
        }
        if (expected != bytes) {
            rl_fb_problem(&r->fb, "its buffer's size does not fit its shape and type");
            return malformed(r, "subgraph %d tensor %d", s, i);
        }
    }
    if (b > 0 && !info->is_variable) {
        info->data = r->fb.data + start;
        info->data_bytes = (size_t)bytes;
    }
    return RL_OK;
}

static rl_status read_tensor(reader *r, int32_t s, int32_t i, const rl_fb_table *t, tensor_info *info) {
    rl_fb *fb = &r->fb;
    double type, buffer, is_variable, dimension;
    uint64_t quantization, sparsity;
    if (!rl_fb_vector_of(fb, t, TENSOR_SHAPE, 4, &info->shape, NULL) ||
        !rl_fb_scalar(fb, t, TENSOR_TYPE, FB_I8, 0, &type) || !rl_fb_scalar(fb, t, TENSOR_BUFFER, FB_U32, 0, &buffer) ||
        !rl_fb_scalar(fb, t, TENSOR_IS_VARIABLE, FB_BOOL, 0, &is_variable) ||
        !rl_fb_ref(fb, t, TENSOR_QUANTIZATION, &quantization) || !rl_fb_ref(fb, t, TENSOR_SPARSITY, &sparsity))
        return malformed(r, "subgraph %d tensor %d", s, i);
    info->type = (int32_t)type;
    info->is_variable = is_variable != 0;
    info->sparsity = sparsity;
    if (buffer >= r->n_buffers) {
        rl_fb_problem(fb, "its buffer index is out of range");
        return malformed(r, "subgraph %d tensor %d", s, i);
    }
    const rl_status status = read_constant(r, s, i, (uint32_t)buffer, sparsity != 0, info);
    if (status != RL_OK || !quantization) return status;
    rl_fb_table q;
    if (!rl_fb_table_at(fb, quantization, &q) || !rl_fb_vector_of(fb, &q, QUANT_SCALE, 4, &info->scale, NULL) ||
        !rl_fb_vector_of(fb, &q, QUANT_ZERO_POINT, 8, &info->zero_point, NULL) ||
        !rl_fb_scalar(fb, &q, QUANT_DIMENSION, FB_I32, 0, &dimension))
        return malformed(r, "subgraph %d tensor %d quantization", s, i);
    info->quantized = 1;
    info->quantized_dimension = (int32_t)dimension;
    return RL_OK;
}

static rl_status read_op(reader *r, int32_t s, int32_t j, const rl_fb_table *t, op_info *info) {
    rl_fb *fb = &r->fb;
    double opcode;
    uint64_t large_offset, large_size, options2_pos;
    int32_t options2_type;
    if (!rl_fb_scalar(fb, t, OP_OPCODE, FB_U32, 0, &opcode) ||
        !rl_fb_vector_of(fb, t, OP_INPUTS, 4, &info->inputs, NULL) ||
        !rl_fb_vector_of(fb, t, OP_OUTPUTS, 4, &info->outputs, NULL) ||
        !rl_fb_vector_of(fb, t, OP_INTERMEDIATES, 4, &info->intermediates, NULL) ||
        !rl_fb_vector_of(fb, t, OP_CUSTOM, 1, &info->custom, NULL) ||
        !rl_fb_union(fb, t, RL_TFLITE_OP_OPTIONS_TYPE, RL_TFLITE_OPTIONS_TYPES, &info->options_type,
                     &info->options_pos) ||
        !rl_fb_union(fb, t, RL_TFLITE_OP_OPTIONS2_TYPE, RL_TFLITE_OPTIONS2_TYPES, &options2_type, &options2_pos) ||
        !rl_fb_u64(fb, t, OP_LARGE_CUSTOM_OFFSET, &large_offset) ||
        !rl_fb_u64(fb, t, OP_LARGE_CUSTOM_SIZE, &large_size))
        return malformed(r, "subgraph %d operator %d", s, j);
    rl_fb_table options;
    const int ok = opcode < r->n_codes ? 1 : rl_fb_problem(fb, "its opcode index is out of range");
    if (!ok || !indices_in_range(r, &info->inputs, -1) || !indices_in_range(r, &info->outputs, 0) ||
        !indices_in_range(r, &info->intermediates, 0) ||
        !(large_offset <= 1 || rl_fb_fits(fb, large_offset, large_size) ||
          rl_fb_problem(fb, "its custom options reach past the end of the file")) ||
        !(!info->options_type || rl_fb_table_at(fb, info->options_pos, &options)))
        return malformed(r, "subgraph %d operator %d", s, j);
    info->code = r->codes[(int32_t)opcode];
    return RL_OK;
}

/* Pass one: everything the plan reads of subgraph s, checked. */
static rl_status read_subgraph(reader *r, const rl_fb_table *model, int32_t s, rl_fb_vector *inputs,
                               rl_fb_vector *outputs) {
    rl_fb *fb = &r->fb;
    rl_fb_vector subgraphs, tensors, ops;
    rl_fb_table sg, t;
    if (!rl_fb_vector_of(fb, model, RL_TFLITE_MODEL_SUBGRAPHS, 4, &subgraphs, NULL) ||
        !rl_fb_vector_of(fb, model, MODEL_BUFFERS, 4, &r->buffers, NULL))
        return malformed(r, "Model");
    r->n_subgraphs = (int32_t)subgraphs.count;
    r->n_buffers = (int32_t)r->buffers.count;
    if (!subgraphs.count) return rl_fail(r->plan, RL_INVALID, "malformed: the model has no subgraphs");
    if (s < 0 || s >= r->n_subgraphs)
        return rl_fail(r->plan, RL_INVALID, "malformed: the model has no subgraph %d (it has %d)", s, r->n_subgraphs);
    if (!rl_fb_table_in(fb, &subgraphs, (uint32_t)s, &sg) ||
        !rl_fb_vector_of(fb, &sg, SUBGRAPH_TENSORS, 4, &tensors, NULL) ||
        !rl_fb_vector_of(fb, &sg, RL_TFLITE_SUBGRAPH_OPERATORS, 4, &ops, NULL) ||
        !rl_fb_vector_of(fb, &sg, SUBGRAPH_INPUTS, 4, inputs, NULL) ||
        !rl_fb_vector_of(fb, &sg, SUBGRAPH_OUTPUTS, 4, outputs, NULL))
        return malformed(r, "subgraph %d", s);
    r->n_tensors = (int32_t)tensors.count;
    r->n_ops = (int32_t)ops.count;
    r->tensors = (tensor_info *)calloc(tensors.count + 1, sizeof *r->tensors);
    r->ops = (op_info *)calloc(ops.count + 1, sizeof *r->ops);
    if (!r->tensors || !r->ops) return rl_fail(r->plan, RL_NO_MEMORY, "out of memory reading the model");
    rl_status status;
    for (int32_t i = 0; i < r->n_tensors; ++i) {
        if (!rl_fb_table_in(fb, &tensors, (uint32_t)i, &t)) return malformed(r, "subgraph %d tensor %d", s, i);
        if ((status = read_tensor(r, s, i, &t, &r->tensors[i])) != RL_OK) return status;
    }
    if (!indices_in_range(r, inputs, 0) || !indices_in_range(r, outputs, 0))
        return malformed(r, "subgraph %d inputs and outputs", s);
    for (int32_t j = 0; j < r->n_ops; ++j) {
        if (!rl_fb_table_in(fb, &ops, (uint32_t)j, &t)) return malformed(r, "subgraph %d operator %d", s, j);
        if ((status = read_op(r, s, j, &t, &r->ops[j])) != RL_OK) return status;
    }
    return RL_OK;
}

/* ---- pass two: feeding the plan ---- */

static rl_status add_tensors(reader *r) {
    rl_plan *plan = r->plan;
    for (int32_t i = 0; i < r->n_tensors; ++i) {
        const tensor_info *t = &r->tensors[i];
        int32_t shape[RL_MAX_DIMS] = {0};
        int32_t rank = t->shape.count > INT32_MAX ? INT32_MAX : (int32_t)t->shape.count;
        for (int32_t d = 0; d < rank && d < RL_MAX_DIMS; ++d) shape[d] = rl_fb_int_at(&r->fb, &t->shape, (uint32_t)d);
        if (t->sparsity) { /* the plan holds a sparse constant's stored values; DENSIFY knows its shape */
            const uint64_t width = itemsize(t->type);
            if (!width || t->data_bytes % width || t->data_bytes / width > INT32_MAX) {
                plan->current_op = -1;
                return rl_fail(plan, RL_UNSUPPORTED, "tensor %d: a sparse tensor rillet takes holds values of a "
                               "fixed-size type (DENSIFY's input)", i);
            }
            rank = 1;
            shape[0] = (int32_t)(t->data_bytes / width);
        }
        const rl_status status = rl_plan_add_tensor(plan, t->type, rank, shape, t->data, t->data_bytes, t->is_variable);
        if (status != RL_OK) {
            char why[RL_MESSAGE_CAPACITY];
            memcpy(why, plan->message, sizeof why);
            plan->current_op = -1;
            return rl_fail(plan, status, "tensor %d: %.400s", i, why);
        }
    }
    for (int32_t i = 0; i < r->n_tensors; ++i) {
        const tensor_info *t = &r->tensors[i];
        const uint32_t count = t->scale.count, zero_count = t->zero_point.count;
        if (!t->quantized || !count) continue;
        if (zero_count && zero_count < count) {
            plan->current_op = -1;
            return rl_fail(plan, RL_INVALID, "malformed: tensor %d: quantization has %u scales but %u zero points", i,
                           count, zero_count);
        }
        float *scales = (float *)scratch(r, (size_t)count * (sizeof(float) + sizeof(int64_t)) + sizeof(int64_t));
        if (!scales) return RL_NO_MEMORY;
        int64_t *zero_points = (int64_t *)(void *)(scales + count + (count & 1));
        for (uint32_t k = 0; k < count; ++k) {
            const uint32_t bits = rl_fb_u32_at(&r->fb, t->scale.start + 4 * (uint64_t)k);
            memcpy(&scales[k], &bits, sizeof bits);
            zero_points[k] = zero_count ? (int64_t)rl_fb_u64_at(&r->fb, t->zero_point.start + 8 * (uint64_t)k) : 0;
        }
        const rl_status status = rl_plan_set_quantization(plan, i, (int32_t)count, scales, zero_points,
                                                          t->quantized_dimension);
        if (status != RL_OK) return status;
    }
    return RL_OK;
}

/* MediaPipe's Convolution2DTransposeBias keeps its options as the raw struct TfLiteTransposeConvParams:
 * padding (TfLitePadding: 1 SAME, 2 VALID), stride_width, stride_height, three little-endian int32. */
static rl_status deconv_options(reader *r, int32_t j, const op_info *op, rl_op_params *params) {
    if (op->custom.count != 12) {
        r->plan->current_op = j;
        return rl_fail(r->plan, RL_INVALID, "its custom options hold %u bytes, not the 12 of {padding, stride_w, "
                       "stride_h}", op->custom.count);
    }
    const int32_t padding = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start);
    if (padding != 1 && padding != 2) {
        r->plan->current_op = j;
        return rl_fail(r->plan, RL_INVALID, "padding %d is neither SAME (1) nor VALID (2)", padding);
    }
    params->conv.padding = padding == 1 ? RL_PADDING_SAME : RL_PADDING_VALID;
    params->conv.stride_w = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 4);
    params->conv.stride_h = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 8);
    return RL_OK;
}

/* MediaPipe's MaxPoolingWithArgmax2D and MaxUnpooling2D keep theirs as the raw struct TfLitePoolParams:
 * padding, stride_width, stride_height, filter_width, filter_height, activation (int32 each), then space the
 * kernel fills at prepare (TfLitePaddingValues), which the file may leave out. */
static rl_status pool_options(reader *r, int32_t j, const op_info *op, rl_op_params *params) {
    if (op->custom.count < 24) {
        r->plan->current_op = j;
        return rl_fail(r->plan, RL_INVALID, "its custom options hold %u bytes, not the 24 or more of TfLitePoolParams",
                       op->custom.count);
    }
    const int32_t padding = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start);
    if (padding != 1 && padding != 2) {
        r->plan->current_op = j;
        return rl_fail(r->plan, RL_INVALID, "padding %d is neither SAME (1) nor VALID (2)", padding);
    }
    params->pool.padding = padding == 1 ? RL_PADDING_SAME : RL_PADDING_VALID;
    params->pool.stride_w = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 4);
    params->pool.stride_h = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 8);
    params->pool.filter_w = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 12);
    params->pool.filter_h = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 16);
    params->pool.activation = (int32_t)rl_fb_u32_at(&r->fb, op->custom.start + 20);
    return RL_OK;
}

/* An LSTM's intermediates' quantization (TFLite's integer LSTM takes its gates' and hidden state's scales from
 * them), for the op to check and use at prepare. */
static void lstm_intermediates(reader *r, const op_info *op, rl_lstm_params *params) {
    params->n_intermediates = (int32_t)op->intermediates.count;
    for (uint32_t k = 0; k < op->intermediates.count && k < 5; ++k) {
        const tensor_info *t = &r->tensors[rl_fb_int_at(&r->fb, &op->intermediates, k)];
        if (!t->quantized || !t->scale.count) continue;
        const uint32_t bits = rl_fb_u32_at(&r->fb, t->scale.start);
        memcpy(&params->intermediate_scale[k], &bits, sizeof bits);
        if (t->zero_point.count)
            params->intermediate_zero_point[k] = (int32_t)(int64_t)rl_fb_u64_at(&r->fb, t->zero_point.start);
    }
}

static rl_status add_ops(reader *r) {
    rl_plan *plan = r->plan;
    if (r->unknown.count) {
        plan->current_op = -1;
        return rl_fail(plan, RL_UNSUPPORTED,
                       "no kernel: %d ops of the model, the first subgraph %d op %d (builtin code %d)",
                       r->unknown.count, r->unknown.subgraph, r->unknown.op, r->unknown.code);
    }
    for (int32_t j = 0; j < r->n_ops; ++j) {
        const op_info *op = &r->ops[j];
        rl_op_params params;
        rl_status status = rl_tflite_op_params(plan, &r->fb, j, op->code, op->options_type, op->options_pos, &params);
        if (status != RL_OK) return status;
        if (op->code == RL_OP_CUSTOM_CONVOLUTION_2D_TRANSPOSE_BIAS && (status = deconv_options(r, j, op, &params)) != RL_OK)
            return status;
        if ((op->code == RL_OP_CUSTOM_MAX_POOLING_WITH_ARGMAX_2D || op->code == RL_OP_CUSTOM_MAX_UNPOOLING_2D) &&
            (status = pool_options(r, j, op, &params)) != RL_OK)
            return status;
        if (op->code == RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM) lstm_intermediates(r, op, &params.lstm);
        int32_t *indices = (int32_t *)scratch(r, sizeof(int32_t) * ((size_t)op->inputs.count + op->outputs.count + 1));
        if (!indices) return RL_NO_MEMORY;
        for (uint32_t k = 0; k < op->inputs.count; ++k) indices[k] = rl_fb_int_at(&r->fb, &op->inputs, k);
        for (uint32_t k = 0; k < op->outputs.count; ++k)
            indices[op->inputs.count + k] = rl_fb_int_at(&r->fb, &op->outputs, k);
        status = rl_plan_add_op(plan, op->code, (int32_t)op->inputs.count, indices, (int32_t)op->outputs.count,
                                indices + op->inputs.count, &params);
        if (status != RL_OK) return status;
    }
    return RL_OK;
}

/* ---- sparse constants: DENSIFY's input ---- */

enum { SPARSITY_TRAVERSAL_ORDER = 0, SPARSITY_BLOCK_MAP = 1, SPARSITY_DIM_METADATA = 2 };
enum { DIM_FORMAT = 0, DIM_DENSE_SIZE = 1, DIM_SEGMENTS = 2, DIM_INDICES = 4 };

/* A SparseIndexVector union member's values (Int32Vector, Uint16Vector, Uint8Vector). */
static int read_index_vector(reader *r, const rl_fb_table *dim, int slot, rl_sparse_vector *out) {
    int32_t type;
    uint64_t pos;
    rl_fb_table t;
    rl_fb_vector v;
    if (!rl_fb_union(&r->fb, dim, slot, 4, &type, &pos)) return 0;
    if (!type) return rl_fb_problem(&r->fb, "a sparse level has no segments or indices");
    const uint32_t width = type == 1 ? 4 : (type == 2 ? 2 : 1);
    if (!rl_fb_table_at(&r->fb, pos, &t) || !rl_fb_vector_of(&r->fb, &t, 0, width, &v, NULL)) return 0;
    out->data = r->fb.data + v.start;
    out->count = v.count;
    out->type = type - 1;
    return 1;
}

/* Tensor i's SparsityParameters as DENSIFY reads them, every read and index checked. */
static rl_status read_sparsity(reader *r, int32_t i, rl_sparsity *sp) {
    rl_fb *fb = &r->fb;
    const tensor_info *t = &r->tensors[i];
    rl_fb_table table, dim;
    rl_fb_vector order, block_map, dims;
    if (!rl_fb_table_at(fb, t->sparsity, &table) ||
        !rl_fb_vector_of(fb, &table, SPARSITY_TRAVERSAL_ORDER, 4, &order, NULL) ||
        !rl_fb_vector_of(fb, &table, SPARSITY_BLOCK_MAP, 4, &block_map, NULL) ||
        !rl_fb_vector_of(fb, &table, SPARSITY_DIM_METADATA, 4, &dims, NULL))
        return malformed(r, "tensor %d sparsity", i);
    sp->rank = (int32_t)t->shape.count;
    sp->n_blocks = (int32_t)block_map.count;
    sp->n_levels = (int32_t)order.count;
    sp->n_values = (int64_t)(t->data_bytes / itemsize(t->type));
    if (sp->rank > RL_MAX_DIMS || sp->n_blocks > sp->rank || sp->n_levels != sp->rank + sp->n_blocks ||
        dims.count != order.count) {
        rl_fb_problem(fb, "its traversal order, block map and dimension metadata do not fit its rank");
        return malformed(r, "tensor %d sparsity", i);
    }
    for (int32_t d = 0; d < sp->rank; ++d) sp->dense_dims[d] = rl_fb_int_at(fb, &t->shape, (uint32_t)d);
    for (int32_t k = 0; k < sp->n_levels; ++k) {
        const int32_t v = rl_fb_int_at(fb, &order, (uint32_t)k);
        const int ok = k < sp->rank ? (v >= 0 && v < sp->rank) : (v >= sp->rank && v < sp->n_levels);
        if (!ok) {
            rl_fb_problem(fb, "its traversal order names an axis out of range");
            return malformed(r, "tensor %d sparsity", i);
        }
        sp->traversal_order[k] = v;
    }
    for (int32_t b = 0; b < sp->n_blocks; ++b) {
        sp->block_map[b] = rl_fb_int_at(fb, &block_map, (uint32_t)b);
        if (sp->block_map[b] < 0 || sp->block_map[b] >= sp->rank) {
            rl_fb_problem(fb, "its block map names an axis out of range");
            return malformed(r, "tensor %d sparsity", i);
        }
    }
    for (int32_t k = 0; k < sp->n_levels; ++k) {
        rl_sparse_level *l = &sp->levels[k];
        double format, dense_size;
        if (!rl_fb_table_in(fb, &dims, (uint32_t)k, &dim) || !rl_fb_scalar(fb, &dim, DIM_FORMAT, FB_I8, 0, &format) ||
            !rl_fb_scalar(fb, &dim, DIM_DENSE_SIZE, FB_I32, 0, &dense_size))
            return malformed(r, "tensor %d sparsity dim_metadata[%d]", i, k);
        l->format = (int32_t)format;
        l->dense_size = (int32_t)dense_size;
        if (l->format == 1) {
            if (!read_index_vector(r, &dim, DIM_SEGMENTS, &l->segments) ||
                !read_index_vector(r, &dim, DIM_INDICES, &l->indices))
                return malformed(r, "tensor %d sparsity dim_metadata[%d]", i, k);
        } else if (l->format != 0 || l->dense_size < 0) {
            rl_fb_problem(fb, "a level is neither DENSE nor SPARSE_CSR, or its size is negative");
            return malformed(r, "tensor %d sparsity dim_metadata[%d]", i, k);
        }
    }
    for (int32_t b = 0; b < sp->n_blocks; ++b) /* TFLite's FormatConverter: the block level's dense size */
        sp->block_size[b] = sp->levels[sp->traversal_order[sp->rank + b]].dense_size;
    return RL_OK;
}

/* Every sparse tensor is DENSIFY's input, and each DENSIFY gets its input's format in its scratch. */
static rl_status attach_sparsity(reader *r) {
    rl_plan *plan = r->plan;
    for (int32_t j = 0; j < r->n_ops; ++j) {
        rl_op *op = &plan->ops[j];
        for (int32_t k = 0; k < op->n_inputs; ++k) {
            const int32_t i = op->inputs[k];
            if (i < 0 || !r->tensors[i].sparsity) continue;
            plan->current_op = j;
            if (op->code != RL_OP_DENSIFY || k != 0)
                return rl_fail(plan, RL_UNSUPPORTED, "input %d (tensor %d) is sparse: rillet reads sparse tensors "
                               "through DENSIFY only", k, i);
            rl_sparsity *sp = (rl_sparsity *)rl_op_scratch(plan, op, sizeof *sp);
            if (!sp) return RL_NO_MEMORY;
            const rl_status status = read_sparsity(r, i, sp);
            if (status != RL_OK) return status;
        }
    }
    plan->current_op = -1;
    return RL_OK;
}

static rl_status set_io(reader *r, const rl_fb_vector *inputs, const rl_fb_vector *outputs) {
    int32_t *indices = (int32_t *)scratch(r, sizeof(int32_t) * ((size_t)inputs->count + outputs->count + 1));
    if (!indices) return RL_NO_MEMORY;
    for (uint32_t k = 0; k < inputs->count; ++k) indices[k] = rl_fb_int_at(&r->fb, inputs, k);
    for (uint32_t k = 0; k < outputs->count; ++k) indices[inputs->count + k] = rl_fb_int_at(&r->fb, outputs, k);
    return rl_plan_set_io(r->plan, (int32_t)inputs->count, indices, (int32_t)outputs->count, indices + inputs->count);
}

static rl_status build(reader *r, int32_t subgraph) {
    rl_fb *fb = &r->fb;
    if (fb->size < 8) return rl_fail(r->plan, RL_INVALID, "malformed: %llu bytes is too short for a flatbuffer",
                                     (unsigned long long)fb->size);
    if (memcmp(fb->data + 4, "TFL3", 4) != 0)
        return rl_fail(r->plan, RL_INVALID, "malformed: the file identifier is not TFL3");
    rl_fb_table model;
    double version;
    if (!rl_fb_table_at(fb, rl_fb_u32_at(fb, 0), &model) ||
        !rl_fb_scalar(fb, &model, MODEL_VERSION, FB_U32, 0, &version))
        return malformed(r, "root Model");
    if (version != 3)
        return rl_fail(r->plan, RL_INVALID,
                       "malformed: schema version %.0f is not supported (TFLite files are version 3)",
                       version);
    rl_fb_vector inputs, outputs;
    rl_status status = read_codes(r, &model);
    if (status == RL_OK) status = read_subgraph(r, &model, subgraph, &inputs, &outputs);
    if (status == RL_OK) status = rl_tflite_check_calls(r->plan, fb, &model, r->codes, r->n_codes, &r->unknown);
    if (status == RL_OK) status = add_tensors(r);
    if (status == RL_OK) status = add_ops(r);
    if (status == RL_OK) status = attach_sparsity(r);
    if (status == RL_OK) status = set_io(r, &inputs, &outputs);
    if (status == RL_OK) status = rl_plan_check_graph(r->plan); /* refused at load, not at allocate */
    return status;
}

rl_status rl_plan_build_from_tflite(rl_plan *plan, const void *model, size_t size, int32_t subgraph) {
    plan->current_op = -1;
    if (plan->n_tensors || plan->n_ops) return rl_fail(plan, RL_BAD_STATE, "the plan already has tensors or ops");
    if (!model && size) return rl_fail(plan, RL_INVALID, "malformed: no model bytes");
    reader r;
    memset(&r, 0, sizeof r);
    r.plan = plan;
    r.fb.data = (const uint8_t *)model;
    r.fb.size = size;
    r.fb.budget = 16 * (uint64_t)size + 1000000;
    const rl_status status = build(&r, subgraph);
    free(r.codes);
    free(r.tensors);
    free(r.ops);
    free(r.scratch);
    if (status == RL_OK) plan->message[0] = '\0';
    return status;
}

const rl_op_params *rl_plan_op_params(const rl_plan *plan, int32_t op) {
    return op >= 0 && op < plan->n_ops ? &plan->ops[op].params : NULL;
}
