/* op_registry.c — the table from builtin code to an op's name, dtypes, prepare and eval. */
#include <string.h>

#include "ops.h"

#define F32 RL_TAKES_F32
#define ANY RL_TAKES_ANY
#define S8 (1u << RL_INT8)
#define S16 (1u << RL_INT16)
#define RESOURCE (1u << RL_RESOURCE)
#define BOOL (1u << RL_BOOL)
#define U8 (1u << RL_UINT8)
#define I64 (1u << RL_INT64)
#define CMP (F32 | RL_TAKES_I32 | I64 | S8 | S16)
#define C64 (1u << RL_COMPLEX64)
#define BOOL (1u << RL_BOOL)
#define U8 (1u << RL_UINT8)
#define I64 (1u << RL_INT64)
#define CMP (F32 | RL_TAKES_I32 | I64 | S8 | S16)

static const rl_op_kind op_kinds[] = {
    {.code = RL_OP_ADD, .name = "ADD", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_binary, .eval = rl_eval_binary},
    {.code = RL_OP_AVERAGE_POOL_2D, .name = "AVERAGE_POOL_2D", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_pool2d, .eval = rl_eval_avgpool2d},
    {.code = RL_OP_CONCATENATION, .name = "CONCATENATION", .dtypes = ANY, .prepare = rl_prepare_concatenation, .eval = rl_eval_concatenation},
    {.code = RL_OP_CONV_2D, .name = "CONV_2D", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_conv2d, .eval = rl_eval_conv2d},
    {.code = RL_OP_DEPTHWISE_CONV_2D, .name = "DEPTHWISE_CONV_2D", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_dwconv2d, .eval = rl_eval_dwconv2d},
    {.code = RL_OP_FULLY_CONNECTED, .name = "FULLY_CONNECTED", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_fully_connected, .eval = rl_eval_fully_connected},
    {.code = RL_OP_LOGISTIC, .name = "LOGISTIC", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_MAX_POOL_2D, .name = "MAX_POOL_2D", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_pool2d, .eval = rl_eval_maxpool2d},
    {.code = RL_OP_MUL, .name = "MUL", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_binary, .eval = rl_eval_binary},
    {.code = RL_OP_RELU, .name = "RELU", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_RELU6, .name = "RELU6", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_RESHAPE, .name = "RESHAPE", .dtypes = ANY | C64, .prepare = rl_prepare_reshape, .eval = rl_eval_copy},
    {.code = RL_OP_RESIZE_BILINEAR, .name = "RESIZE_BILINEAR", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_resize, .eval = rl_eval_resize},
    {.code = RL_OP_SOFTMAX, .name = "SOFTMAX", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_softmax},
    {.code = RL_OP_TANH, .name = "TANH", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_PAD, .name = "PAD", .dtypes = ANY, .prepare = rl_prepare_pad, .eval = rl_eval_pad},
    {.code = RL_OP_GATHER, .name = "GATHER", .dtypes = ANY, .prepare = rl_prepare_gather, .eval = rl_eval_gather},
    {.code = RL_OP_TRANSPOSE, .name = "TRANSPOSE", .dtypes = ANY, .prepare = rl_prepare_transpose, .eval = rl_eval_transpose},
    {.code = RL_OP_MEAN, .name = "MEAN", .dtypes = F32 | RL_TAKES_I32 | I64 | S8 | S16, .prepare = rl_prepare_reduce, .eval = rl_eval_reduce},
    {.code = RL_OP_SUB, .name = "SUB", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_binary, .eval = rl_eval_binary},
    {.code = RL_OP_DIV, .name = "DIV", .dtypes = F32 | S8 | RL_TAKES_I32 | S16, .prepare = rl_prepare_div, .eval = rl_eval_div},
    {.code = RL_OP_SQUEEZE, .name = "SQUEEZE", .dtypes = ANY | C64, .prepare = rl_prepare_squeeze, .eval = rl_eval_copy},
    {.code = RL_OP_STRIDED_SLICE, .name = "STRIDED_SLICE", .dtypes = ANY, .prepare = rl_prepare_strided_slice, .eval = rl_eval_strided_slice},
    {.code = RL_OP_EXP, .name = "EXP", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_unary_math_s8, .eval = rl_eval_unary_math_s8},
    {.code = RL_OP_LOG_SOFTMAX, .name = "LOG_SOFTMAX", .dtypes = F32 | S8, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_log_softmax},
    {.code = RL_OP_CAST, .name = "CAST", .dtypes = ANY | C64, .prepare = rl_prepare_cast, .eval = rl_eval_cast},
    {.code = RL_OP_NEG, .name = "NEG", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_neg, .eval = rl_eval_neg},
    {.code = RL_OP_PADV2, .name = "PADV2", .dtypes = ANY, .prepare = rl_prepare_pad, .eval = rl_eval_pad},
    {.code = RL_OP_GREATER, .name = "GREATER", .dtypes = CMP, .prepare = rl_prepare_compare, .eval = rl_eval_compare},
    {.code = RL_OP_SLICE, .name = "SLICE", .dtypes = ANY, .prepare = rl_prepare_slice, .eval = rl_eval_strided_slice},
    {.code = RL_OP_EXPAND_DIMS, .name = "EXPAND_DIMS", .dtypes = ANY | C64, .prepare = rl_prepare_expand_dims,
     .eval = rl_eval_copy},

    {.code = RL_OP_LOG, .name = "LOG", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_unary_math_s8, .eval = rl_eval_unary_math_s8},
    {.code = RL_OP_SUM, .name = "SUM", .dtypes = F32 | RL_TAKES_I32 | I64 | S8 | S16, .prepare = rl_prepare_reduce, .eval = rl_eval_reduce},
    {.code = RL_OP_RSQRT, .name = "RSQRT", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_unary_math_s8, .eval = rl_eval_unary_math_s8},
    {.code = RL_OP_SHAPE, .name = "SHAPE", .dtypes = ANY, .shape_only = 1, .prepare = rl_prepare_shape, .eval = rl_eval_shape},
    {.code = RL_OP_PACK, .name = "PACK", .dtypes = ANY, .prepare = rl_prepare_concatenation, .eval = rl_eval_concatenation},
    {.code = RL_OP_RESIZE_NEAREST_NEIGHBOR, .name = "RESIZE_NEAREST_NEIGHBOR", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_resize, .eval = rl_eval_resize},
    {.code = RL_OP_LEAKY_RELU, .name = "LEAKY_RELU", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_leaky_relu},
    {.code = RL_OP_SQUARED_DIFFERENCE, .name = "SQUARED_DIFFERENCE", .dtypes = F32 | RL_TAKES_I32 | S8, .prepare = rl_prepare_squared_difference, .eval = rl_eval_squared_difference},
    {.code = RL_OP_HARD_SWISH, .name = "HARD_SWISH", .dtypes = F32 | S8, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_BATCH_MATMUL, .name = "BATCH_MATMUL", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_batch_matmul, .eval = rl_eval_batch_matmul},
    {.code = RL_OP_QUANTIZE, .name = "QUANTIZE", .dtypes = F32 | (1u << RL_INT8) | U8 | S16, .prepare = rl_prepare_quantize, .eval = rl_eval_quantize},
    {.code = RL_OP_DEQUANTIZE, .name = "DEQUANTIZE", .dtypes = (1u << RL_INT8) | (1u << RL_FLOAT16) | S16, .prepare = rl_prepare_dequantize, .eval = rl_eval_dequantize},
    {.code = RL_OP_MAXIMUM, .name = "MAXIMUM", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_binary, .eval = rl_eval_binary},
    {.code = RL_OP_MINIMUM, .name = "MINIMUM", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_binary, .eval = rl_eval_binary},
    {.code = RL_OP_PRELU, .name = "PRELU", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_prelu, .eval = rl_eval_prelu},
    {.code = RL_OP_GREATER_EQUAL, .name = "GREATER_EQUAL", .dtypes = CMP, .prepare = rl_prepare_compare,
     .eval = rl_eval_compare},
    {.code = RL_OP_LESS, .name = "LESS", .dtypes = CMP, .prepare = rl_prepare_compare, .eval = rl_eval_compare},
    {.code = RL_OP_LESS_EQUAL, .name = "LESS_EQUAL", .dtypes = CMP, .prepare = rl_prepare_compare,
     .eval = rl_eval_compare},
    {.code = RL_OP_EQUAL, .name = "EQUAL", .dtypes = CMP, .prepare = rl_prepare_compare, .eval = rl_eval_compare},
    {.code = RL_OP_NOT_EQUAL, .name = "NOT_EQUAL", .dtypes = CMP, .prepare = rl_prepare_compare, .eval = rl_eval_compare},

    {.code = RL_OP_SIN, .name = "SIN", .dtypes = F32, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_COS, .name = "COS", .dtypes = F32, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_ABS, .name = "ABS", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_abs, .eval = rl_eval_abs},
    {.code = RL_OP_SQRT, .name = "SQRT", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_unary_math_s8, .eval = rl_eval_unary_math_s8},
    {.code = RL_OP_SQUARE, .name = "SQUARE", .dtypes = F32, .prepare = rl_prepare_same_shape_f32, .eval = rl_eval_unary},
    {.code = RL_OP_SPLIT, .name = "SPLIT", .dtypes = ANY, .prepare = rl_prepare_split, .eval = rl_eval_split},
    {.code = RL_OP_SPLIT_V, .name = "SPLIT_V", .dtypes = ANY, .prepare = rl_prepare_split, .eval = rl_eval_split},
    {.code = RL_OP_DEPTH_TO_SPACE, .name = "DEPTH_TO_SPACE", .dtypes = ANY, .prepare = rl_prepare_depth_space,
     .eval = rl_eval_depth_space},
    {.code = RL_OP_SPACE_TO_DEPTH, .name = "SPACE_TO_DEPTH", .dtypes = ANY, .prepare = rl_prepare_depth_space,
     .eval = rl_eval_depth_space},
    {.code = RL_OP_REDUCE_MAX, .name = "REDUCE_MAX", .dtypes = F32 | RL_TAKES_I32 | I64 | S8 | S16, .prepare = rl_prepare_reduce,
     .eval = rl_eval_reduce},
    {.code = RL_OP_REDUCE_MIN, .name = "REDUCE_MIN", .dtypes = F32 | RL_TAKES_I32 | I64 | S8 | S16, .prepare = rl_prepare_reduce,
     .eval = rl_eval_reduce},
    {.code = RL_OP_SELECT, .name = "SELECT", .dtypes = RL_TAKES_ANY, .prepare = rl_prepare_select, .eval = rl_eval_select},
    {.code = RL_OP_SELECT_V2, .name = "SELECT_V2", .dtypes = RL_TAKES_ANY, .prepare = rl_prepare_select,
     .eval = rl_eval_select},
    {.code = RL_OP_TRANSPOSE_CONV, .name = "TRANSPOSE_CONV", .dtypes = F32 | S8 | S16, .data_input = 2,
     .prepare = rl_prepare_transpose_conv, .eval = rl_eval_transpose_conv},
    /* stateful: its stream advances at every invoke, so it is never folded */
    {.code = RL_OP_RANDOM_UNIFORM, .name = "RANDOM_UNIFORM", .dtypes = RL_TAKES_I32, .stateful = 1,
     .prepare = rl_prepare_random_uniform, .eval = rl_eval_random_uniform},
    /* Issue 11's widened op set (ops.h lists their files). */
    {.code = RL_OP_UNPACK, .name = "UNPACK", .dtypes = ANY, .prepare = rl_prepare_unpack, .eval = rl_eval_unpack},
    {.code = RL_OP_TILE, .name = "TILE", .dtypes = ANY, .prepare = rl_prepare_tile, .eval = rl_eval_tile},
    {.code = RL_OP_BROADCAST_TO, .name = "BROADCAST_TO", .dtypes = ANY, .prepare = rl_prepare_tile, .eval = rl_eval_tile},
    {.code = RL_OP_GATHER_ND, .name = "GATHER_ND", .dtypes = ANY, .prepare = rl_prepare_gather_nd,
     .eval = rl_eval_gather_nd},
    {.code = RL_OP_ARG_MAX, .name = "ARG_MAX", .dtypes = F32 | RL_TAKES_I32 | S8 | U8, .prepare = rl_prepare_arg_minmax,
     .eval = rl_eval_arg_minmax},
    {.code = RL_OP_ARG_MIN, .name = "ARG_MIN", .dtypes = F32 | RL_TAKES_I32 | S8 | U8, .prepare = rl_prepare_arg_minmax,
     .eval = rl_eval_arg_minmax},
    {.code = RL_OP_REDUCE_PROD, .name = "REDUCE_PROD", .dtypes = F32 | RL_TAKES_I32 | S8 | S16, .prepare = rl_prepare_reduce_prod_any,
     .eval = rl_eval_reduce_prod_any},
    {.code = RL_OP_REDUCE_ANY, .name = "REDUCE_ANY", .dtypes = BOOL, .prepare = rl_prepare_reduce_prod_any,
     .eval = rl_eval_reduce_prod_any},
    {.code = RL_OP_LOGICAL_AND, .name = "LOGICAL_AND", .dtypes = BOOL, .prepare = rl_prepare_logical, .eval = rl_eval_logical},
    {.code = RL_OP_LOGICAL_OR, .name = "LOGICAL_OR", .dtypes = BOOL, .prepare = rl_prepare_logical, .eval = rl_eval_logical},
    {.code = RL_OP_LOGICAL_NOT, .name = "LOGICAL_NOT", .dtypes = BOOL, .prepare = rl_prepare_logical, .eval = rl_eval_logical},
    {.code = RL_OP_POW, .name = "POW", .dtypes = F32 | RL_TAKES_I32, .prepare = rl_prepare_binary_math,
     .eval = rl_eval_binary_math},
    {.code = RL_OP_FLOOR_DIV, .name = "FLOOR_DIV", .dtypes = F32 | RL_TAKES_I32 | S16, .prepare = rl_prepare_binary_math,
     .eval = rl_eval_binary_math},
    {.code = RL_OP_FLOOR_MOD, .name = "FLOOR_MOD", .dtypes = F32 | RL_TAKES_I32 | S16, .prepare = rl_prepare_binary_math,
     .eval = rl_eval_binary_math},
    {.code = RL_OP_FLOOR, .name = "FLOOR", .dtypes = F32, .prepare = rl_prepare_unary_math, .eval = rl_eval_unary_math},
    {.code = RL_OP_CEIL, .name = "CEIL", .dtypes = F32, .prepare = rl_prepare_unary_math, .eval = rl_eval_unary_math},
    {.code = RL_OP_ROUND, .name = "ROUND", .dtypes = F32, .prepare = rl_prepare_unary_math, .eval = rl_eval_unary_math},
    {.code = RL_OP_ELU, .name = "ELU", .dtypes = F32 | S8, .prepare = rl_prepare_unary_math_s8, .eval = rl_eval_unary_math_s8},
    {.code = RL_OP_GELU, .name = "GELU", .dtypes = F32 | S8 | S16, .prepare = rl_prepare_unary_math_s8, .eval = rl_eval_unary_math_s8},
    {.code = RL_OP_RELU_N1_TO_1, .name = "RELU_N1_TO_1", .dtypes = F32 | S8, .prepare = rl_prepare_unary_math,
     .eval = rl_eval_unary_math},
    {.code = RL_OP_L2_NORMALIZATION, .name = "L2_NORMALIZATION", .dtypes = F32 | S8, .prepare = rl_prepare_normalization,
     .eval = rl_eval_normalization},
    {.code = RL_OP_LOCAL_RESPONSE_NORMALIZATION, .name = "LOCAL_RESPONSE_NORMALIZATION", .dtypes = F32,
     .prepare = rl_prepare_normalization, .eval = rl_eval_normalization},
    {.code = RL_OP_SPACE_TO_BATCH_ND, .name = "SPACE_TO_BATCH_ND", .dtypes = ANY, .prepare = rl_prepare_space_batch,
     .eval = rl_eval_space_batch},
    {.code = RL_OP_BATCH_TO_SPACE_ND, .name = "BATCH_TO_SPACE_ND", .dtypes = ANY, .prepare = rl_prepare_space_batch,
     .eval = rl_eval_space_batch},
    {.code = RL_OP_MIRROR_PAD, .name = "MIRROR_PAD", .dtypes = ANY, .prepare = rl_prepare_mirror_pad,
     .eval = rl_eval_mirror_pad},
    {.code = RL_OP_FILL, .name = "FILL", .dtypes = ANY, .data_input = 1, .prepare = rl_prepare_fill_range,
     .eval = rl_eval_fill_range},
    /* shape_only: zeros of the input's shape, folded at prepare */
    {.code = RL_OP_ZEROS_LIKE, .name = "ZEROS_LIKE", .dtypes = ANY, .shape_only = 1, .prepare = rl_prepare_fill_range,
     .eval = rl_eval_fill_range},
    {.code = RL_OP_RANGE, .name = "RANGE", .dtypes = F32 | RL_TAKES_I32 | I64, .prepare = rl_prepare_fill_range,
     .eval = rl_eval_fill_range},
    {.code = RL_OP_CUMSUM, .name = "CUMSUM", .dtypes = F32 | RL_TAKES_I32 | I64, .prepare = rl_prepare_cumsum,
     .eval = rl_eval_cumsum},
    {.code = RL_OP_EMBEDDING_LOOKUP, .name = "EMBEDDING_LOOKUP", .dtypes = ANY, .data_input = 1,
     .prepare = rl_prepare_embedding_lookup, .eval = rl_eval_embedding_lookup},
    {.code = RL_OP_ONE_HOT, .name = "ONE_HOT", .dtypes = ANY, .data_input = 2, .prepare = rl_prepare_one_hot,
     .eval = rl_eval_one_hot},
    /* dtypes: the stored values' (float16 weights are densified, then dequantized) */
    {.code = RL_OP_DENSIFY, .name = "DENSIFY", .dtypes = ANY | (1u << RL_FLOAT16), .prepare = rl_prepare_densify,
     .eval = rl_eval_densify},
    /* stateful: a branch may touch the program's variables, so neither is folded */
    {.code = RL_OP_IF, .name = "IF", .dtypes = BOOL | F32 | RL_TAKES_I32, .stateful = 1, .prepare = rl_prepare_if,
     .eval = rl_eval_if},
    {.code = RL_OP_WHILE, .name = "WHILE", .dtypes = ANY, .stateful = 1, .prepare = rl_prepare_while,
     .eval = rl_eval_while},
    {.code = RL_OP_REVERSE_V2, .name = "REVERSE_V2", .dtypes = ANY, .prepare = rl_prepare_reverse,
     .eval = rl_eval_reverse},
    {.code = RL_OP_REDUCE_ALL, .name = "REDUCE_ALL", .dtypes = BOOL, .prepare = rl_prepare_reduce_prod_any,
     .eval = rl_eval_reduce_prod_any},
    {.code = RL_OP_DYNAMIC_UPDATE_SLICE, .name = "DYNAMIC_UPDATE_SLICE", .dtypes = F32 | S8 | RL_TAKES_I32 | I64 | BOOL,
     .prepare = rl_prepare_dynamic_update_slice, .eval = rl_eval_dynamic_update_slice},
    {.code = RL_OP_RFFT2D, .name = "RFFT2D", .dtypes = F32, .prepare = rl_prepare_rfft2d, .eval = rl_eval_rfft2d},
    {.code = RL_OP_CUSTOM_CONVOLUTION_2D_TRANSPOSE_BIAS, .name = "Convolution2DTransposeBias", .dtypes = F32,
     .prepare = rl_prepare_deconv_bias, .eval = rl_eval_deconv_bias},
    {.code = RL_OP_CUSTOM_MAX_POOLING_WITH_ARGMAX_2D, .name = "MaxPoolingWithArgmax2D", .dtypes = F32,
     .prepare = rl_prepare_argmax_pool, .eval = rl_eval_argmax_pool},
    {.code = RL_OP_CUSTOM_MAX_UNPOOLING_2D, .name = "MaxUnpooling2D", .dtypes = F32, .prepare = rl_prepare_unpool,
     .eval = rl_eval_unpool},
    /* stateful: its h and c live across invokes, zeroed by reset_all_variables as TFLite's variable tensors */
    {.code = RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, .name = "UNIDIRECTIONAL_SEQUENCE_LSTM", .dtypes = F32 | S8, .stateful = 1,
     .prepare = rl_prepare_lstm, .eval = rl_eval_lstm, .reset_state = rl_reset_lstm},
    /* ---- end of issue 11's ops ---- */
    {.code = RL_OP_VAR_HANDLE, .name = "VAR_HANDLE", .dtypes = ANY, .shape_only = 1, .prepare = rl_prepare_var_handle,
     .eval = rl_eval_var_handle},
    {.code = RL_OP_READ_VARIABLE, .name = "READ_VARIABLE", .dtypes = RESOURCE, .stateful = 1,
     .prepare = rl_prepare_read_variable, .eval = rl_eval_read_variable},
    {.code = RL_OP_ASSIGN_VARIABLE, .name = "ASSIGN_VARIABLE", .dtypes = RESOURCE, .stateful = 1,
     .prepare = rl_prepare_assign_variable, .eval = rl_eval_assign_variable},
    {.code = RL_OP_CALL_ONCE, .name = "CALL_ONCE", .dtypes = ANY, .stateful = 1, .prepare = rl_prepare_call_once,
     .eval = rl_eval_call_once},
};

const rl_op_kind *rl_find_op_kind(int32_t code) {
    for (size_t i = 0; i < sizeof op_kinds / sizeof op_kinds[0]; ++i)
        if (op_kinds[i].code == code) return &op_kinds[i];
    return NULL;
}

int32_t rl_custom_op_code(const char *name, size_t length) {
    for (size_t i = 0; i < sizeof op_kinds / sizeof op_kinds[0]; ++i)
        if (op_kinds[i].code >= RL_OP_CUSTOM_CONVOLUTION_2D_TRANSPOSE_BIAS && strlen(op_kinds[i].name) == length &&
            memcmp(op_kinds[i].name, name, length) == 0)
            return op_kinds[i].code;
    return -1;
}

int32_t rl_custom_op_is_known(const char *name) { return rl_custom_op_code(name, strlen(name)) >= 0; }

int32_t rl_op_registry_entry(int32_t i, int32_t *builtin_code, const char **name, uint32_t *dtypes) {
    if (i < 0 || (size_t)i >= sizeof op_kinds / sizeof op_kinds[0]) return 0;
    *builtin_code = op_kinds[i].code;
    *name = op_kinds[i].name;
    *dtypes = op_kinds[i].dtypes;
    return 1;
}
