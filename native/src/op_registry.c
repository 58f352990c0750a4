/* op_registry.c — the table from builtin code to an op's name, dtypes, prepare and eval. */
#include "ops.h"

#define F32 RL_TAKES_F32
#define ANY RL_TAKES_ANY
#define S8 (1u << RL_INT8)

static const rl_op_kind op_kinds[] = {
    {RL_OP_ADD, "ADD", F32 | RL_TAKES_I32 | S8, 0, rl_prepare_binary, rl_eval_binary},
    {RL_OP_AVERAGE_POOL_2D, "AVERAGE_POOL_2D", F32 | S8, 0, rl_prepare_pool2d, rl_eval_avgpool2d},
    {RL_OP_CONCATENATION, "CONCATENATION", ANY, 0, rl_prepare_concatenation, rl_eval_concatenation},
    {RL_OP_CONV_2D, "CONV_2D", F32 | S8, 0, rl_prepare_conv2d, rl_eval_conv2d},
    {RL_OP_DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", F32 | S8, 0, rl_prepare_dwconv2d, rl_eval_dwconv2d},
    {RL_OP_FULLY_CONNECTED, "FULLY_CONNECTED", F32 | S8, 0, rl_prepare_fully_connected, rl_eval_fully_connected},
    {RL_OP_LOGISTIC, "LOGISTIC", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_MAX_POOL_2D, "MAX_POOL_2D", F32 | S8, 0, rl_prepare_pool2d, rl_eval_maxpool2d},
    {RL_OP_MUL, "MUL", F32 | RL_TAKES_I32 | S8, 0, rl_prepare_binary, rl_eval_binary},
    {RL_OP_RELU, "RELU", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_RELU6, "RELU6", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_RESHAPE, "RESHAPE", ANY, 0, rl_prepare_reshape, rl_eval_copy},
    {RL_OP_RESIZE_BILINEAR, "RESIZE_BILINEAR", F32 | S8, 0, rl_prepare_resize, rl_eval_resize},
    {RL_OP_SOFTMAX, "SOFTMAX", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_softmax},
    {RL_OP_TANH, "TANH", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_PAD, "PAD", ANY, 0, rl_prepare_pad, rl_eval_pad},
    {RL_OP_GATHER, "GATHER", ANY, 0, rl_prepare_gather, rl_eval_gather},
    {RL_OP_TRANSPOSE, "TRANSPOSE", ANY, 0, rl_prepare_transpose, rl_eval_transpose},
    {RL_OP_MEAN, "MEAN", F32 | S8, 0, rl_prepare_reduce, rl_eval_reduce},
    {RL_OP_SUB, "SUB", F32 | RL_TAKES_I32 | S8, 0, rl_prepare_binary, rl_eval_binary},
    {RL_OP_DIV, "DIV", F32 | RL_TAKES_I32, 0, rl_prepare_binary, rl_eval_binary},
    {RL_OP_SQUEEZE, "SQUEEZE", ANY, 0, rl_prepare_squeeze, rl_eval_copy},
    {RL_OP_STRIDED_SLICE, "STRIDED_SLICE", ANY, 0, rl_prepare_strided_slice, rl_eval_strided_slice},
    {RL_OP_EXP, "EXP", F32, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_LOG_SOFTMAX, "LOG_SOFTMAX", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_log_softmax},
    {RL_OP_CAST, "CAST", ANY, 0, rl_prepare_cast, rl_eval_cast},
    {RL_OP_NEG, "NEG", F32, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_PADV2, "PADV2", ANY, 0, rl_prepare_pad, rl_eval_pad},
    {RL_OP_GREATER, "GREATER", F32, 0, rl_prepare_binary, rl_eval_binary},
    {RL_OP_SLICE, "SLICE", ANY, 0, rl_prepare_slice, rl_eval_strided_slice},
    {RL_OP_EXPAND_DIMS, "EXPAND_DIMS", ANY, 0, rl_prepare_expand_dims, rl_eval_copy},
    {RL_OP_LOG, "LOG", F32, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_SUM, "SUM", F32 | S8, 0, rl_prepare_reduce, rl_eval_reduce},
    {RL_OP_RSQRT, "RSQRT", F32, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_SHAPE, "SHAPE", ANY, 1, rl_prepare_shape, rl_eval_shape},
    {RL_OP_PACK, "PACK", ANY, 0, rl_prepare_concatenation, rl_eval_concatenation},
    {RL_OP_RESIZE_NEAREST_NEIGHBOR, "RESIZE_NEAREST_NEIGHBOR", F32 | S8, 0, rl_prepare_resize, rl_eval_resize},
    {RL_OP_LEAKY_RELU, "LEAKY_RELU", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_leaky_relu},
    {RL_OP_SQUARED_DIFFERENCE, "SQUARED_DIFFERENCE", F32 | RL_TAKES_I32, 0, rl_prepare_binary, rl_eval_binary},
    {RL_OP_HARD_SWISH, "HARD_SWISH", F32 | S8, 0, rl_prepare_same_shape_f32, rl_eval_unary},
    {RL_OP_BATCH_MATMUL, "BATCH_MATMUL", F32 | S8, 0, rl_prepare_batch_matmul, rl_eval_batch_matmul},
    {RL_OP_QUANTIZE, "QUANTIZE", F32 | (1u << RL_INT8), 0, rl_prepare_quantize, rl_eval_quantize},
    {RL_OP_DEQUANTIZE, "DEQUANTIZE", (1u << RL_INT8) | (1u << RL_FLOAT16), 0, rl_prepare_dequantize,
     rl_eval_dequantize},
};

const rl_op_kind *rl_find_op_kind(int32_t code) {
    for (size_t i = 0; i < sizeof op_kinds / sizeof op_kinds[0]; ++i)
        if (op_kinds[i].code == code) return &op_kinds[i];
    return NULL;
}
