/* tflite_options.c — an op's rl_op_params from its TFLite builtin options table.
 *
 * Two tables drive it. `option_fields`: per options type, where each field rillet reads sits (its vtable
 * slot, type and schema default), transcribed from converter/format/schema.py (a test holds the two
 * equal). `op_parameters`: per op, which field fills which parameter and the op's own default when it has
 * no options table. Fields are matched by name, so options of an unusual type give what they share with
 * the usual one, as runtime/plan.py's fillers (getattr by name) did.
 */
#include <stddef.h>
#include <string.h>

#include "ops.h"
#include "tflite_reader.h"

typedef enum {
    F_PADDING, F_STRIDE_W, F_STRIDE_H, F_DILATION_W, F_DILATION_H, F_DEPTH_MULTIPLIER, F_ACTIVATION,
    F_FILTER_W, F_FILTER_H, F_WEIGHTS_FORMAT, F_KEEP_NUM_DIMS, F_ADJ_X, F_ADJ_Y, F_KEEP_DIMS, F_BETA, F_ALPHA,
    F_AXIS, F_NEW_SHAPE, F_SQUEEZE_DIMS, F_BEGIN_MASK, F_END_MASK, F_ELLIPSIS_MASK, F_NEW_AXIS_MASK,
    F_SHRINK_AXIS_MASK, F_OFFSET, F_BATCH_DIMS, F_VALUES_COUNT, F_OUT_TYPE, F_ALIGN_CORNERS,
    F_HALF_PIXEL_CENTERS, F_RADIUS, F_BIAS, F_MODE, F_EXCLUSIVE, F_REVERSE, F_APPROXIMATE, F_THEN_SUBGRAPH_INDEX,
    F_ELSE_SUBGRAPH_INDEX, F_COND_SUBGRAPH_INDEX, F_BODY_SUBGRAPH_INDEX, F_CELL_CLIP, F_PROJ_CLIP, F_TIME_MAJOR,
    F_INIT_SUBGRAPH_INDEX, F_CONTAINER, F_SHARED_NAME, F_BLOCK_SIZE, F_SEED, F_SEED2, F_ASYMMETRIC_QUANTIZE_INPUTS,
    F_POT_SCALE_INT16, F_QUANTIZED_BIAS_TYPE
} option_field_name;

typedef struct {
    uint8_t options_type; /* BuiltinOptions type code */
    uint8_t field;        /* option_field_name */
    uint8_t slot;
    uint8_t type;         /* rl_fb_type */
    int8_t schema_default;
} option_field;

/* Sorted by options type. */
static const option_field option_fields[] = {
    /* option-fields-begin (generated from schema.py; tests/native/test_tflite_reader.py checks it) */
    /* Conv2DOptions */ {1, F_PADDING, 0, FB_I8, 0}, {1, F_STRIDE_W, 1, FB_I32, 0}, {1, F_STRIDE_H, 2, FB_I32, 0},
    {1, F_ACTIVATION, 3, FB_I8, 0}, {1, F_DILATION_W, 4, FB_I32, 1}, {1, F_DILATION_H, 5, FB_I32, 1},
    {1, F_QUANTIZED_BIAS_TYPE, 6, FB_I8, 0},
    /* DepthwiseConv2DOptions */ {2, F_PADDING, 0, FB_I8, 0}, {2, F_STRIDE_W, 1, FB_I32, 0},
    {2, F_STRIDE_H, 2, FB_I32, 0}, {2, F_DEPTH_MULTIPLIER, 3, FB_I32, 0}, {2, F_ACTIVATION, 4, FB_I8, 0},
    {2, F_DILATION_W, 5, FB_I32, 1}, {2, F_DILATION_H, 6, FB_I32, 1},
    /* Pool2DOptions */ {5, F_PADDING, 0, FB_I8, 0}, {5, F_STRIDE_W, 1, FB_I32, 0}, {5, F_STRIDE_H, 2, FB_I32, 0},
    {5, F_FILTER_W, 3, FB_I32, 0}, {5, F_FILTER_H, 4, FB_I32, 0}, {5, F_ACTIVATION, 5, FB_I8, 0},
    /* SVDFOptions */ {6, F_ACTIVATION, 1, FB_I8, 0}, {6, F_ASYMMETRIC_QUANTIZE_INPUTS, 2, FB_BOOL, 0},
    /* RNNOptions */ {7, F_ACTIVATION, 0, FB_I8, 0}, {7, F_ASYMMETRIC_QUANTIZE_INPUTS, 1, FB_BOOL, 0},
    /* FullyConnectedOptions */ {8, F_ACTIVATION, 0, FB_I8, 0}, {8, F_WEIGHTS_FORMAT, 1, FB_I8, 0},
    {8, F_KEEP_NUM_DIMS, 2, FB_BOOL, 0}, {8, F_ASYMMETRIC_QUANTIZE_INPUTS, 3, FB_BOOL, 0},
    {8, F_QUANTIZED_BIAS_TYPE, 4, FB_I8, 0},
    /* SoftmaxOptions */ {9, F_BETA, 0, FB_F32, 0},
    /* ConcatenationOptions */ {10, F_AXIS, 0, FB_I32, 0}, {10, F_ACTIVATION, 1, FB_I8, 0},
    /* AddOptions */ {11, F_ACTIVATION, 0, FB_I8, 0}, {11, F_POT_SCALE_INT16, 1, FB_BOOL, 1},
    /* L2NormOptions */ {12, F_ACTIVATION, 0, FB_I8, 0},
    /* LocalResponseNormalizationOptions */ {13, F_RADIUS, 0, FB_I32, 0}, {13, F_BIAS, 1, FB_F32, 0},
    {13, F_ALPHA, 2, FB_F32, 0}, {13, F_BETA, 3, FB_F32, 0},
    /* LSTMOptions */ {14, F_ACTIVATION, 0, FB_I8, 0}, {14, F_CELL_CLIP, 1, FB_F32, 0}, {14, F_PROJ_CLIP, 2, FB_F32, 0},
    {14, F_ASYMMETRIC_QUANTIZE_INPUTS, 4, FB_BOOL, 0},
    /* ResizeBilinearOptions */ {15, F_ALIGN_CORNERS, 2, FB_BOOL, 0}, {15, F_HALF_PIXEL_CENTERS, 3, FB_BOOL, 0},
    /* ReshapeOptions */ {17, F_NEW_SHAPE, 0, FB_INTS, 0},
    /* SpaceToDepthOptions */ {19, F_BLOCK_SIZE, 0, FB_I32, 0},
    /* MulOptions */ {21, F_ACTIVATION, 0, FB_I8, 0},
    /* GatherOptions */ {23, F_AXIS, 0, FB_I32, 0}, {23, F_BATCH_DIMS, 1, FB_I32, 0},
    /* ReducerOptions */ {27, F_KEEP_DIMS, 0, FB_BOOL, 0},
    /* SubOptions */ {28, F_ACTIVATION, 0, FB_I8, 0}, {28, F_POT_SCALE_INT16, 1, FB_BOOL, 1},
    /* DivOptions */ {29, F_ACTIVATION, 0, FB_I8, 0},
    /* SqueezeOptions */ {30, F_SQUEEZE_DIMS, 0, FB_INTS, 0},
    /* SequenceRNNOptions */ {31, F_ACTIVATION, 1, FB_I8, 0}, {31, F_TIME_MAJOR, 0, FB_BOOL, 0},
    {31, F_ASYMMETRIC_QUANTIZE_INPUTS, 2, FB_BOOL, 0},
    /* StridedSliceOptions */ {32, F_BEGIN_MASK, 0, FB_I32, 0}, {32, F_END_MASK, 1, FB_I32, 0},
    {32, F_ELLIPSIS_MASK, 2, FB_I32, 0}, {32, F_NEW_AXIS_MASK, 3, FB_I32, 0},
    {32, F_SHRINK_AXIS_MASK, 4, FB_I32, 0}, {32, F_OFFSET, 5, FB_BOOL, 0},
    /* TransposeConvOptions */ {49, F_PADDING, 0, FB_I8, 0}, {49, F_STRIDE_W, 1, FB_I32, 0},
    {49, F_STRIDE_H, 2, FB_I32, 0}, {49, F_ACTIVATION, 3, FB_I8, 0}, {49, F_QUANTIZED_BIAS_TYPE, 4, FB_I8, 0},
    /* ShapeOptions */ {55, F_OUT_TYPE, 0, FB_I8, 0},
    /* PackOptions */ {59, F_VALUES_COUNT, 0, FB_I32, 0}, {59, F_AXIS, 1, FB_I32, 0},
    /* OneHotOptions */ {61, F_AXIS, 0, FB_I32, 0},
    /* UnpackOptions */ {64, F_AXIS, 1, FB_I32, 0},
    /* BidirectionalSequenceLSTMOptions */ {69, F_ACTIVATION, 0, FB_I8, 0}, {69, F_CELL_CLIP, 1, FB_F32, 0},
    {69, F_PROJ_CLIP, 2, FB_F32, 0}, {69, F_TIME_MAJOR, 4, FB_BOOL, 1},
    {69, F_ASYMMETRIC_QUANTIZE_INPUTS, 5, FB_BOOL, 0},
    /* BidirectionalSequenceRNNOptions */ {70, F_ACTIVATION, 1, FB_I8, 0}, {70, F_TIME_MAJOR, 0, FB_BOOL, 0},
    {70, F_ASYMMETRIC_QUANTIZE_INPUTS, 3, FB_BOOL, 0},
    /* UnidirectionalSequenceLSTMOptions */ {71, F_ACTIVATION, 0, FB_I8, 0}, {71, F_CELL_CLIP, 1, FB_F32, 0},
    {71, F_PROJ_CLIP, 2, FB_F32, 0}, {71, F_TIME_MAJOR, 3, FB_BOOL, 0},
    {71, F_ASYMMETRIC_QUANTIZE_INPUTS, 4, FB_BOOL, 0},
    /* ResizeNearestNeighborOptions */ {74, F_ALIGN_CORNERS, 0, FB_BOOL, 0},
    {74, F_HALF_PIXEL_CENTERS, 1, FB_BOOL, 0},
    /* LeakyReluOptions */ {75, F_ALPHA, 0, FB_F32, 0},
    /* MirrorPadOptions */ {77, F_MODE, 0, FB_I8, 0},
    /* IfOptions */ {92, F_THEN_SUBGRAPH_INDEX, 0, FB_I32, 0}, {92, F_ELSE_SUBGRAPH_INDEX, 1, FB_I32, 0},
    /* WhileOptions */ {93, F_COND_SUBGRAPH_INDEX, 0, FB_I32, 0}, {93, F_BODY_SUBGRAPH_INDEX, 1, FB_I32, 0},
    /* DepthToSpaceOptions */ {94, F_BLOCK_SIZE, 0, FB_I32, 0},
    /* BatchMatMulOptions */ {101, F_ADJ_X, 0, FB_BOOL, 0}, {101, F_ADJ_Y, 1, FB_BOOL, 0},
    {101, F_ASYMMETRIC_QUANTIZE_INPUTS, 2, FB_BOOL, 0},
    /* CumsumOptions */ {102, F_EXCLUSIVE, 0, FB_BOOL, 0}, {102, F_REVERSE, 1, FB_BOOL, 0},
    /* CallOnceOptions */ {103, F_INIT_SUBGRAPH_INDEX, 0, FB_I32, 0},
    /* Conv3DOptions */ {106, F_PADDING, 0, FB_I8, 0}, {106, F_STRIDE_W, 2, FB_I32, 0},
    {106, F_STRIDE_H, 3, FB_I32, 0}, {106, F_ACTIVATION, 4, FB_I8, 0}, {106, F_DILATION_W, 6, FB_I32, 1},
    {106, F_DILATION_H, 7, FB_I32, 1},
    /* VarHandleOptions */ {111, F_CONTAINER, 0, FB_STRING, 0}, {111, F_SHARED_NAME, 1, FB_STRING, 0},
    /* RandomOptions */ {114, F_SEED, 0, FB_I64, 0}, {114, F_SEED2, 1, FB_I64, 0},
    /* GeluOptions */ {116, F_APPROXIMATE, 0, FB_BOOL, 0},
    /* option-fields-end */
};

/* How a field becomes a parameter: as an int32, as 0/1, as a float, as an int64 (RANDOM_UNIFORM's seeds),
 * a count and up to 8 ints (count -1: absent or longer: RESHAPE's new_shape), the first 8 ints (SQUEEZE's
 * dims), a field that must be 0, or the id in the plan's program of the variable that (container,
 * shared_name) name (VAR_HANDLE). */
typedef enum { P_INT, P_BOOL, P_FLOAT, P_SHAPE, P_DIMS, P_MUST_BE_ZERO, P_VARIABLE, P_INT64 } parameter_kind;

typedef struct {
    int32_t code;
    uint8_t field;
    uint8_t kind;
    uint16_t offset; /* in rl_op_params */
    float op_default;
} op_parameter;

#define AT(member) ((uint16_t)offsetof(rl_op_params, member))
#define CONV(code)                                                                                         \
    {code, F_PADDING, P_INT, AT(conv.padding), 0}, {code, F_STRIDE_W, P_INT, AT(conv.stride_w), 1},          \
    {code, F_STRIDE_H, P_INT, AT(conv.stride_h), 1}, {code, F_DILATION_W, P_INT, AT(conv.dilation_w), 1},  \
    {code, F_DILATION_H, P_INT, AT(conv.dilation_h), 1},                                                   \
    {code, F_DEPTH_MULTIPLIER, P_INT, AT(conv.depth_multiplier), 1},                                       \
    {code, F_ACTIVATION, P_INT, AT(conv.activation), 0}
#define POOL(code)                                                                                         \
    {code, F_PADDING, P_INT, AT(pool.padding), 0}, {code, F_STRIDE_W, P_INT, AT(pool.stride_w), 1},          \
    {code, F_STRIDE_H, P_INT, AT(pool.stride_h), 1}, {code, F_FILTER_W, P_INT, AT(pool.filter_w), 1},      \
    {code, F_FILTER_H, P_INT, AT(pool.filter_h), 1}, {code, F_ACTIVATION, P_INT, AT(pool.activation), 0}
#define ARITHMETIC(code) {code, F_ACTIVATION, P_INT, AT(arithmetic.activation), 0}
#define REDUCER(code) {code, F_KEEP_DIMS, P_BOOL, AT(reducer.keep_dims), 0}
#define RESIZE(code)                                                                                       \
    {code, F_ALIGN_CORNERS, P_BOOL, AT(resize.align_corners), 0},                                          \
    {code, F_HALF_PIXEL_CENTERS, P_BOOL, AT(resize.half_pixel_centers), 0}

static const op_parameter op_parameters[] = {
    CONV(RL_OP_CONV_2D), CONV(RL_OP_DEPTHWISE_CONV_2D), POOL(RL_OP_MAX_POOL_2D), POOL(RL_OP_AVERAGE_POOL_2D),
    {RL_OP_FULLY_CONNECTED, F_WEIGHTS_FORMAT, P_MUST_BE_ZERO, 0, 0},
    {RL_OP_FULLY_CONNECTED, F_ACTIVATION, P_INT, AT(fully_connected.activation), 0},
    {RL_OP_FULLY_CONNECTED, F_KEEP_NUM_DIMS, P_BOOL, AT(fully_connected.keep_num_dims), 0},
    {RL_OP_FULLY_CONNECTED, F_QUANTIZED_BIAS_TYPE, P_INT, AT(fully_connected.quantized_bias_type), 0},
    {RL_OP_BATCH_MATMUL, F_ADJ_X, P_BOOL, AT(batch_matmul.adj_x), 0},
    {RL_OP_BATCH_MATMUL, F_ADJ_Y, P_BOOL, AT(batch_matmul.adj_y), 0},
    ARITHMETIC(RL_OP_ADD), ARITHMETIC(RL_OP_SUB),
    {RL_OP_ADD, F_POT_SCALE_INT16, P_BOOL, AT(arithmetic.pot_scale_int16), 1},
    {RL_OP_SUB, F_POT_SCALE_INT16, P_BOOL, AT(arithmetic.pot_scale_int16), 1}, ARITHMETIC(RL_OP_MUL), ARITHMETIC(RL_OP_DIV),
    REDUCER(RL_OP_MEAN), REDUCER(RL_OP_SUM), REDUCER(RL_OP_REDUCE_MAX), REDUCER(RL_OP_REDUCE_MIN),
    {RL_OP_SOFTMAX, F_BETA, P_FLOAT, AT(softmax.beta), 1.0f},
    {RL_OP_LEAKY_RELU, F_ALPHA, P_FLOAT, AT(leaky_relu.alpha), 0},
    {RL_OP_CONCATENATION, F_AXIS, P_INT, AT(concatenation.axis), 0},
    {RL_OP_CONCATENATION, F_ACTIVATION, P_INT, AT(concatenation.activation), 0},
    {RL_OP_RESHAPE, F_NEW_SHAPE, P_SHAPE, AT(reshape), 0},
    {RL_OP_SQUEEZE, F_SQUEEZE_DIMS, P_DIMS, AT(squeeze), 0},
    {RL_OP_STRIDED_SLICE, F_BEGIN_MASK, P_INT, AT(strided_slice.begin_mask), 0},
    {RL_OP_STRIDED_SLICE, F_END_MASK, P_INT, AT(strided_slice.end_mask), 0},
    {RL_OP_STRIDED_SLICE, F_ELLIPSIS_MASK, P_INT, AT(strided_slice.ellipsis_mask), 0},
    {RL_OP_STRIDED_SLICE, F_NEW_AXIS_MASK, P_INT, AT(strided_slice.new_axis_mask), 0},
    {RL_OP_STRIDED_SLICE, F_SHRINK_AXIS_MASK, P_INT, AT(strided_slice.shrink_axis_mask), 0},
    {RL_OP_STRIDED_SLICE, F_OFFSET, P_BOOL, AT(strided_slice.offset), 0},
    {RL_OP_GATHER, F_AXIS, P_INT, AT(gather.axis), 0},
    {RL_OP_GATHER, F_BATCH_DIMS, P_INT, AT(gather.batch_dims), 0},
    {RL_OP_PACK, F_AXIS, P_INT, AT(pack.axis), 0},
    {RL_OP_PACK, F_VALUES_COUNT, P_INT, AT(pack.values_count), 0},
    {RL_OP_SHAPE, F_OUT_TYPE, P_INT, AT(shape.out_type), 2},
    RESIZE(RL_OP_RESIZE_BILINEAR), RESIZE(RL_OP_RESIZE_NEAREST_NEIGHBOR),
    {RL_OP_CALL_ONCE, F_INIT_SUBGRAPH_INDEX, P_INT, AT(call_once.init_subgraph_index), 0},
    {RL_OP_VAR_HANDLE, F_CONTAINER, P_VARIABLE, AT(var_handle.resource_id), 0},
    {RL_OP_TRANSPOSE_CONV, F_PADDING, P_INT, AT(conv.padding), 0},
    {RL_OP_TRANSPOSE_CONV, F_STRIDE_W, P_INT, AT(conv.stride_w), 1},
    {RL_OP_TRANSPOSE_CONV, F_STRIDE_H, P_INT, AT(conv.stride_h), 1},
    {RL_OP_TRANSPOSE_CONV, F_ACTIVATION, P_INT, AT(conv.activation), 0},
    {RL_OP_RANDOM_UNIFORM, F_SEED, P_INT64, AT(random.seed), 0},
    {RL_OP_RANDOM_UNIFORM, F_SEED2, P_INT64, AT(random.seed2), 0},
    {RL_OP_UNPACK, F_AXIS, P_INT, AT(pack.axis), 0}, REDUCER(RL_OP_REDUCE_PROD), REDUCER(RL_OP_REDUCE_ANY), REDUCER(RL_OP_REDUCE_ALL),
    {RL_OP_L2_NORMALIZATION, F_ACTIVATION, P_INT, AT(arithmetic.activation), 0},
    {RL_OP_LOCAL_RESPONSE_NORMALIZATION, F_RADIUS, P_INT, AT(lrn.radius), 0},
    {RL_OP_LOCAL_RESPONSE_NORMALIZATION, F_BIAS, P_FLOAT, AT(lrn.bias), 0},
    {RL_OP_LOCAL_RESPONSE_NORMALIZATION, F_ALPHA, P_FLOAT, AT(lrn.alpha), 0},
    {RL_OP_LOCAL_RESPONSE_NORMALIZATION, F_BETA, P_FLOAT, AT(lrn.beta), 0},
    {RL_OP_MIRROR_PAD, F_MODE, P_INT, AT(mirror_pad.mode), 0},
    {RL_OP_CUMSUM, F_EXCLUSIVE, P_BOOL, AT(cumsum.exclusive), 0},
    {RL_OP_CUMSUM, F_REVERSE, P_BOOL, AT(cumsum.reverse), 0},
    {RL_OP_GELU, F_APPROXIMATE, P_BOOL, AT(gelu.approximate), 0},
    {RL_OP_ONE_HOT, F_AXIS, P_INT, AT(one_hot.axis), 0},
    {RL_OP_IF, F_THEN_SUBGRAPH_INDEX, P_INT, AT(if_op.then_subgraph_index), 0},
    {RL_OP_IF, F_ELSE_SUBGRAPH_INDEX, P_INT, AT(if_op.else_subgraph_index), 0},
    {RL_OP_WHILE, F_COND_SUBGRAPH_INDEX, P_INT, AT(while_op.cond_subgraph_index), 0},
    {RL_OP_WHILE, F_BODY_SUBGRAPH_INDEX, P_INT, AT(while_op.body_subgraph_index), 0},
    {RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, F_ACTIVATION, P_INT, AT(lstm.activation), 0},
    {RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, F_CELL_CLIP, P_FLOAT, AT(lstm.cell_clip), 0},
    {RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, F_PROJ_CLIP, P_FLOAT, AT(lstm.proj_clip), 0},
    {RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, F_TIME_MAJOR, P_BOOL, AT(lstm.time_major), 0},
    {RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, F_ASYMMETRIC_QUANTIZE_INPUTS, P_BOOL, AT(lstm.asymmetric_quantize_inputs), 0},
    {RL_OP_DEPTH_TO_SPACE, F_BLOCK_SIZE, P_INT, AT(depth_space.block_size), 0},
    {RL_OP_SPACE_TO_DEPTH, F_BLOCK_SIZE, P_INT, AT(depth_space.block_size), 0},
};

static const option_field *find_option_field(int32_t options_type, int field) {
    const size_t n = sizeof option_fields / sizeof option_fields[0];
    for (size_t i = 0; i < n && option_fields[i].options_type <= options_type; ++i)
        if (option_fields[i].options_type == options_type && option_fields[i].field == field)
            return &option_fields[i];
    return NULL;
}

static int32_t to_int32(double v) {
    if (v != v) return 0;
    if (v >= 2147483647.0) return INT32_MAX;
    if (v <= -2147483648.0) return INT32_MIN;
    return (int32_t)v;
}

/* A [int] field as RESHAPE's or SQUEEZE's count and values. */
static int read_ints(rl_fb *fb, const rl_fb_table *options, const option_field *f, int32_t kind, int32_t *count,
                     int32_t *values) {
    rl_fb_vector v;
    int present = 0;
    if (options && f && !rl_fb_vector_of(fb, options, f->slot, 4, &v, &present)) return 0;
    if (!present) {
        *count = kind == P_SHAPE ? -1 : 0;
        return 1;
    }
    if (kind == P_SHAPE && v.count > RL_MAX_DIMS) {
        *count = -1;
        return 1;
    }
    *count = (int32_t)(v.count < RL_MAX_DIMS ? v.count : RL_MAX_DIMS);
    for (int32_t i = 0; i < *count; ++i) values[i] = rl_fb_int_at(fb, &v, (uint32_t)i);
    return 1;
}

/* A string field as a NUL-terminated copy in `text` (capacity bytes; "" when absent). */
static int read_string(rl_fb *fb, const rl_fb_table *options, const option_field *f, char *text, size_t capacity) {
    rl_fb_vector v;
    text[0] = '\0';
    if (!options || !f) return 1;
    if (!rl_fb_vector_of(fb, options, f->slot, 1, &v, NULL)) return 0;
    if (v.count >= capacity) {
        fb->problem = "a variable's name is longer than rillet takes";
        return 0;
    }
    memcpy(text, fb->data + v.start, v.count);
    text[v.count] = '\0';
    return 1;
}

/* VAR_HANDLE's variable id, from the plan's program. */
static rl_status variable_id(rl_plan *plan, rl_fb *fb, int32_t op, const rl_fb_table *options, int32_t options_type,
                             int32_t *id) {
    char container[256], shared_name[256];
    if (!read_string(fb, options, options ? find_option_field(options_type, F_CONTAINER) : NULL, container,
                     sizeof container) ||
        !read_string(fb, options, options ? find_option_field(options_type, F_SHARED_NAME) : NULL, shared_name,
                     sizeof shared_name)) {
        plan->current_op = -1;
        return rl_fail(plan, RL_INVALID, "malformed: operator %d: builtin options: %s", op, fb->problem);
    }
    plan->current_op = op;
    if (!plan->program) return rl_fail(plan, RL_INVALID, "resource variables need the model's program");
    *id = rl_program_variable_id(plan->program, container, shared_name);
    if (*id < 0) return rl_fail(plan, RL_NO_MEMORY, "out of memory for another variable");
    return RL_OK;
}

rl_status rl_tflite_op_params(rl_plan *plan, rl_fb *fb, int32_t op, int32_t code, int32_t options_type,
                              uint64_t options_pos, rl_op_params *params) {
    rl_fb_table table;
    const rl_fb_table *options = NULL;
    memset(params, 0, sizeof *params);
    const size_t n = sizeof op_parameters / sizeof op_parameters[0];
    for (size_t k = 0; k < n; ++k) {
        const op_parameter *p = &op_parameters[k];
        if (p->code != code) continue;
        if (options_type && !options) {
            if (!rl_fb_table_at(fb, options_pos, &table)) goto malformed;
            options = &table;
        }
        const option_field *f = options ? find_option_field(options_type, p->field) : NULL;
        char *at = (char *)params + p->offset;
        if (p->kind == P_VARIABLE) {
            int32_t id = 0;
            const rl_status status = variable_id(plan, fb, op, options, options_type, &id);
            if (status != RL_OK) return status;
            memcpy(at, &id, sizeof id);
            continue;
        }
        if (p->kind == P_SHAPE || p->kind == P_DIMS) {
            int32_t *count = (int32_t *)(void *)at;
            if (!read_ints(fb, f ? options : NULL, f, p->kind, count, count + 1)) goto malformed;
            continue;
        }
        double value = p->op_default;
        if (f && !rl_fb_scalar(fb, options, f->slot, (rl_fb_type)f->type, f->schema_default, &value)) goto malformed;
        if (p->kind == P_MUST_BE_ZERO) {
            if (value != 0) {
                plan->current_op = op;
                return rl_fail(plan, RL_INVALID, "shuffled weights are not supported");
            }
        } else if (p->kind == P_INT64) { /* seeds: exact below 2^53, as the options reader gives a double */
            const int64_t x = value >= 9.2e18 ? INT64_MAX : value <= -9.2e18 ? INT64_MIN : (int64_t)value;
            memcpy(at, &x, sizeof x);
        } else if (p->kind == P_FLOAT) {
            const float x = (float)value;
            memcpy(at, &x, sizeof x);
        } else {
            const int32_t x = p->kind == P_BOOL ? value != 0 : to_int32(value);
            memcpy(at, &x, sizeof x);
        }
    }
    return RL_OK;
malformed:
    plan->current_op = -1;
    return rl_fail(plan, RL_INVALID, "malformed: operator %d: builtin options: %s", op, fb->problem);
}
