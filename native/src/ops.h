/* ops.h — the builtin op codes rillet runs (TFLite's numbering) and each op's prepare and eval. */
#ifndef RILLET_OPS_H
#define RILLET_OPS_H

#include "plan_internal.h"

enum {
    RL_OP_ADD = 0, RL_OP_AVERAGE_POOL_2D = 1, RL_OP_CONCATENATION = 2, RL_OP_CONV_2D = 3,
    RL_OP_DEPTHWISE_CONV_2D = 4, RL_OP_FULLY_CONNECTED = 9, RL_OP_LOGISTIC = 14, RL_OP_MAX_POOL_2D = 17,
    RL_OP_MUL = 18, RL_OP_RELU = 19, RL_OP_RELU6 = 21, RL_OP_RESHAPE = 22, RL_OP_RESIZE_BILINEAR = 23,
    RL_OP_SOFTMAX = 25, RL_OP_TANH = 28, RL_OP_PAD = 34, RL_OP_GATHER = 36, RL_OP_TRANSPOSE = 39,
    RL_OP_MEAN = 40, RL_OP_SUB = 41, RL_OP_DIV = 42, RL_OP_SQUEEZE = 43, RL_OP_STRIDED_SLICE = 45,
    RL_OP_EXP = 47, RL_OP_LOG_SOFTMAX = 50, RL_OP_CAST = 53, RL_OP_NEG = 59, RL_OP_PADV2 = 60,
    RL_OP_GREATER = 61, RL_OP_SLICE = 65, RL_OP_EXPAND_DIMS = 70, RL_OP_LOG = 73, RL_OP_SUM = 74,
    RL_OP_RSQRT = 76, RL_OP_SHAPE = 77, RL_OP_PACK = 83, RL_OP_RESIZE_NEAREST_NEIGHBOR = 97,
    RL_OP_LEAKY_RELU = 98, RL_OP_SQUARED_DIFFERENCE = 99, RL_OP_HARD_SWISH = 117, RL_OP_BATCH_MATMUL = 126,
    RL_OP_PRELU = 54, RL_OP_MAXIMUM = 55, RL_OP_MINIMUM = 57, RL_OP_LESS = 58, RL_OP_GREATER_EQUAL = 62,
    RL_OP_LESS_EQUAL = 63, RL_OP_SIN = 66, RL_OP_EQUAL = 71, RL_OP_NOT_EQUAL = 72, RL_OP_SQRT = 75,
    RL_OP_SQUARE = 92, RL_OP_ABS = 101, RL_OP_COS = 108, RL_OP_SPACE_TO_DEPTH = 26, RL_OP_DEPTH_TO_SPACE = 5,
    RL_OP_SPLIT = 49, RL_OP_SPLIT_V = 102, RL_OP_REDUCE_MAX = 82, RL_OP_REDUCE_MIN = 89, RL_OP_SELECT = 64,
    RL_OP_SELECT_V2 = 123
};
rl_status rl_prepare_select(rl_plan *plan, rl_op *op);
rl_status rl_eval_select(rl_plan *plan, rl_op *op);

/* SPLIT / SPLIT_V (split.c), DEPTH_TO_SPACE / SPACE_TO_DEPTH (depth_space.c). */
#define RL_MAX_SPLITS 32
rl_status rl_prepare_split(rl_plan *plan, rl_op *op);
rl_status rl_eval_split(rl_plan *plan, rl_op *op);
rl_status rl_prepare_depth_space(rl_plan *plan, rl_op *op);
rl_status rl_eval_depth_space(rl_plan *plan, rl_op *op);

rl_status rl_broadcast_shapes(rl_plan *plan, const rl_shape *a, const rl_shape *b, rl_shape *out, rl_broadcast *bc);

rl_status rl_prepare_conv2d(rl_plan *plan, rl_op *op);
rl_status rl_eval_conv2d(rl_plan *plan, rl_op *op);
rl_status rl_prepare_dwconv2d(rl_plan *plan, rl_op *op);
rl_status rl_eval_dwconv2d(rl_plan *plan, rl_op *op);
rl_status rl_prepare_pool2d(rl_plan *plan, rl_op *op);
rl_status rl_eval_maxpool2d(rl_plan *plan, rl_op *op);
rl_status rl_eval_avgpool2d(rl_plan *plan, rl_op *op);
rl_status rl_prepare_fully_connected(rl_plan *plan, rl_op *op);
rl_status rl_eval_fully_connected(rl_plan *plan, rl_op *op);
rl_status rl_prepare_batch_matmul(rl_plan *plan, rl_op *op);
rl_status rl_eval_batch_matmul(rl_plan *plan, rl_op *op);

/* int8 and hybrid (int8 weights, float32 activations) paths of the ops above, and QUANTIZE/DEQUANTIZE
 * (conv_int8.c, matmul_int8.c, quantize.c). The float ops' prepare/eval dispatch to them by dtype. */
enum { RL_OP_DEQUANTIZE = 6, RL_OP_QUANTIZE = 114 };
rl_status rl_prepare_conv2d_quantized(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise);
rl_status rl_eval_conv2d_quantized(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise);
rl_status rl_prepare_fully_connected_quantized(rl_plan *plan, rl_op *op);
rl_status rl_eval_fully_connected_quantized(rl_plan *plan, rl_op *op);
rl_status rl_prepare_batch_matmul_quantized(rl_plan *plan, rl_op *op);
rl_status rl_eval_batch_matmul_quantized(rl_plan *plan, rl_op *op);
rl_status rl_prepare_batch_matmul_int16(rl_plan *plan, rl_op *op); /* batch_matmul_int16.c */
/* TFLite's 16x8 CONV_2D and FULLY_CONNECTED (gemm_int16.c), DEPTHWISE_CONV_2D (dwconv_int16.c), TRANSPOSE_CONV
 * (transpose_conv_int16.c), and what they share: the dtype checks, and per-channel multipliers in op->scratch
 * (float_product: a per-tensor filter's, ruy's way). */
rl_status rl_prepare_conv2d_int16(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
rl_status rl_prepare_fully_connected_int16(rl_plan *plan, rl_op *op);
rl_status rl_prepare_dwconv2d_int16(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
rl_status rl_prepare_transpose_conv_int16(rl_plan *plan, rl_op *op);
rl_status rl_s16_check_16x8(rl_plan *plan, const char *op_name, const rl_tensor *input, const rl_tensor *filter,
                            const rl_tensor *bias, const rl_tensor *output, int allow_int32_bias);
rl_status rl_s16_channel_multipliers(rl_plan *plan, rl_op *op, const rl_tensor *input, const rl_tensor *filter,
                                     const rl_tensor *output, int32_t channels, int32_t axis, int float_product,
                                     int32_t max_shift, const rl_qs16_channel **factors);
/* Checks a symmetric int8 filter's quantization (one scale, or one per output channel on `axis`) and returns
 * its `channels` scales, per-tensor ones repeated, in memory that lives with the op. */
rl_status rl_s8_filter_scales(rl_plan *plan, rl_op *op, const rl_tensor *filter, int32_t channels, int32_t axis,
                              float *scales);
/* The requantization of an int8 op whose filter scales are known: zero points, fp32 scales, clamp range. */
rl_status rl_s8_requantization_of(rl_plan *plan, const rl_tensor *input, const rl_tensor *output,
                                  int32_t activation, const float *filter_scales, int32_t channels, float *scales,
                                  rl_quant_params *q);
/* Hybrid: float32 activations, int8 weights (conv_hybrid.c). */
rl_status rl_prepare_conv2d_hybrid(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise);
rl_status rl_eval_conv2d_hybrid(rl_plan *plan, rl_op *op, const rl_window_geometry *g, int depthwise);
rl_status rl_prepare_batch_matmul_hybrid(rl_plan *plan, rl_op *op);
rl_status rl_eval_batch_matmul_hybrid(rl_plan *plan, rl_op *op);
rl_status rl_prepare_quantize(rl_plan *plan, rl_op *op);
rl_status rl_eval_quantize(rl_plan *plan, rl_op *op);
rl_status rl_prepare_quantize_int8_uint8(rl_plan *plan, rl_op *op); /* quantize_int8_uint8.c */
/* TFLite's 16x8 mode (int16 activations, zero point 0): each sets op->run (s16_elementwise.h's kernels). */
rl_status rl_prepare_quantize_s16(rl_plan *plan, rl_op *op);   /* quantize_int16.c */
rl_status rl_prepare_dequantize_s16(rl_plan *plan, rl_op *op); /* quantize_int16.c */
rl_status rl_prepare_binary_s16(rl_plan *plan, rl_op *op);     /* binary_int16.c */
rl_status rl_prepare_floor_div_mod_s16(rl_plan *plan, rl_op *op); /* binary_int16.c */
rl_status rl_prepare_activation_s16(rl_plan *plan, rl_op *op); /* activation_int16.c */
rl_status rl_prepare_unary_s16(rl_plan *plan, rl_op *op);      /* unary_int16.c */
rl_status rl_prepare_prelu_s16(rl_plan *plan, rl_op *op);      /* prelu_compare_int16.c */
rl_status rl_prepare_compare_s16(rl_plan *plan, rl_op *op);    /* prelu_compare_int16.c */
rl_status rl_prepare_resize_s16(rl_plan *plan, rl_op *op);     /* resize_int16.c */
rl_status rl_prepare_reduce_s16(rl_plan *plan, rl_op *op, int64_t reduced_count); /* reduce_int16.c */
rl_status rl_prepare_reduce_int(rl_plan *plan, rl_op *op); /* reduce_int.c: int32 / int64 */
rl_status rl_prepare_reduce_prod_s16(rl_plan *plan, rl_op *op, const int64_t *dims, const int32_t *reduced);
rl_status rl_prepare_pool2d_s16(rl_plan *plan, rl_op *op, const rl_window_geometry *g); /* pool_int16.c */
rl_status rl_prepare_dequantize(rl_plan *plan, rl_op *op);
rl_status rl_eval_dequantize(rl_plan *plan, rl_op *op);
rl_status rl_prepare_binary(rl_plan *plan, rl_op *op);
rl_status rl_eval_binary(rl_plan *plan, rl_op *op);
/* The comparison (rl_compare_op) an op code names, or -1 for any other op (ops/elementwise.c). */
int rl_compare_of(int32_t code);
rl_status rl_prepare_same_shape_f32(rl_plan *plan, rl_op *op);
rl_status rl_eval_unary(rl_plan *plan, rl_op *op);
rl_status rl_eval_leaky_relu(rl_plan *plan, rl_op *op);
rl_status rl_eval_softmax(rl_plan *plan, rl_op *op);
rl_status rl_eval_log_softmax(rl_plan *plan, rl_op *op);
rl_status rl_prepare_reduce(rl_plan *plan, rl_op *op);
/* A float MEAN or SUM over `rows` contiguous rows of `row` values whose input is MUL(x, x) or SQUARED_DIFFERENCE(x, one
 * value per row), read by it alone: the squaring op sums each row's squares instead (reduce_sumsq.c). */
rl_status rl_use_f32_sum_of_squares(rl_plan *plan, rl_op *op, size_t rows, size_t row);
rl_status rl_eval_reduce(rl_plan *plan, rl_op *op);
rl_status rl_prepare_reshape(rl_plan *plan, rl_op *op);
rl_status rl_prepare_squeeze(rl_plan *plan, rl_op *op);
rl_status rl_prepare_expand_dims(rl_plan *plan, rl_op *op);
rl_status rl_eval_copy(rl_plan *plan, rl_op *op);
rl_status rl_prepare_shape(rl_plan *plan, rl_op *op);
rl_status rl_eval_shape(rl_plan *plan, rl_op *op);
rl_status rl_prepare_concatenation(rl_plan *plan, rl_op *op);
rl_status rl_eval_concatenation(rl_plan *plan, rl_op *op);
rl_status rl_prepare_pad(rl_plan *plan, rl_op *op);
rl_status rl_eval_pad(rl_plan *plan, rl_op *op);
rl_status rl_prepare_transpose(rl_plan *plan, rl_op *op);
rl_status rl_eval_transpose(rl_plan *plan, rl_op *op);
rl_status rl_prepare_strided_slice(rl_plan *plan, rl_op *op);
rl_status rl_prepare_slice(rl_plan *plan, rl_op *op);
rl_status rl_eval_strided_slice(rl_plan *plan, rl_op *op);
rl_status rl_prepare_gather(rl_plan *plan, rl_op *op);
rl_status rl_eval_gather(rl_plan *plan, rl_op *op);
rl_status rl_prepare_cast(rl_plan *plan, rl_op *op);
rl_status rl_eval_cast(rl_plan *plan, rl_op *op);
rl_status rl_prepare_resize(rl_plan *plan, rl_op *op);
rl_status rl_eval_resize(rl_plan *plan, rl_op *op);

/* TRANSPOSE_CONV (transpose_conv.c), RANDOM_UNIFORM (random_uniform.c). */
enum { RL_OP_TRANSPOSE_CONV = 67, RL_OP_RANDOM_UNIFORM = 148 };
rl_status rl_prepare_transpose_conv(rl_plan *plan, rl_op *op);
rl_status rl_eval_transpose_conv(rl_plan *plan, rl_op *op);
/* NEG: int8 in neg_int8.c, float on to elementwise.c. */
rl_status rl_prepare_neg(rl_plan *plan, rl_op *op);
rl_status rl_eval_neg(rl_plan *plan, rl_op *op);
rl_status rl_prepare_random_uniform(rl_plan *plan, rl_op *op);
rl_status rl_eval_random_uniform(rl_plan *plan, rl_op *op);

/* Resource variables and CALL_ONCE (variables.c). */
enum { RL_OP_CALL_ONCE = 129, RL_OP_VAR_HANDLE = 142, RL_OP_READ_VARIABLE = 143, RL_OP_ASSIGN_VARIABLE = 144 };
rl_status rl_prepare_var_handle(rl_plan *plan, rl_op *op);
rl_status rl_eval_var_handle(rl_plan *plan, rl_op *op);
rl_status rl_prepare_read_variable(rl_plan *plan, rl_op *op);
rl_status rl_eval_read_variable(rl_plan *plan, rl_op *op);
rl_status rl_prepare_assign_variable(rl_plan *plan, rl_op *op);
rl_status rl_eval_assign_variable(rl_plan *plan, rl_op *op);
rl_status rl_prepare_call_once(rl_plan *plan, rl_op *op);
rl_status rl_eval_call_once(rl_plan *plan, rl_op *op);

/* An int8 op computed as a 256-entry table over its input's bits (s8_table.c): rl_s8_table_prepare checks the
 * output is int8 and both are quantized per tensor, gives the op this state (count set, every input
 * accepted) and its run; the op's prepare then fills the table. */
typedef struct {
    int64_t count;
    int8_t table[256];    /* indexed by the input's bits as uint8 */
    int32_t lowest_input; /* inputs below it are refused at eval (RSQRT, SQRT); -128 accepts all */
} rl_s8_table_state;
rl_status rl_s8_table_prepare(rl_plan *plan, rl_op *op, rl_s8_table_state **state);
rl_status rl_s8_table_run(rl_plan *plan, rl_op *op);
/* Inputs below `lowest_input` refused at eval (RSQRT, SQRT); in bands, after its segment (end_rows). */
void rl_s8_table_refuse_below(rl_op *op, rl_s8_table_state *st, int32_t lowest_input);
/* y[i] = table[x[i]] for count elements, split across the plan's threads (the run of every table op). */
void rl_s8_lut_elements(rl_plan *plan, const int8_t *table, const int8_t *x, int8_t *y, int64_t count);

/* int8 kernels (elementwise_int8.c, activation_int8.c, pool_int8.c, reduce_int8.c, resize_int8.c). */
rl_status rl_prepare_binary_s8(rl_plan *plan, rl_op *op);
rl_status rl_eval_binary_s8(rl_plan *plan, rl_op *op);
rl_status rl_prepare_activation_s8(rl_plan *plan, rl_op *op);
rl_status rl_eval_activation_s8(rl_plan *plan, rl_op *op);
rl_status rl_prepare_softmax_s8(rl_plan *plan, rl_op *op);
rl_status rl_prepare_softmax_f32(rl_plan *plan, rl_op *op); /* softmax.c: float rows on the f32_vexp kernels */
rl_status rl_eval_softmax_s8(rl_plan *plan, rl_op *op);
rl_status rl_prepare_log_softmax_s8(rl_plan *plan, rl_op *op);
rl_status rl_eval_log_softmax_s8(rl_plan *plan, rl_op *op);
rl_status rl_prepare_pool2d_s8(rl_plan *plan, rl_op *op);
rl_status rl_eval_pool2d_s8(rl_plan *plan, rl_op *op, const rl_window_geometry *g);
rl_status rl_prepare_reduce_s8(rl_plan *plan, rl_op *op, int64_t reduced_count);
rl_status rl_eval_reduce_s8(rl_plan *plan, rl_op *op);
rl_status rl_prepare_resize_s8(rl_plan *plan, rl_op *op);
rl_status rl_eval_resize_s8(rl_plan *plan, rl_op *op);

/* Issue 11's widened op set, one file each: unpack.c, tile_broadcast.c (TILE, BROADCAST_TO), gather_nd.c,
 * arg_minmax.c, reduce_prod_any.c, logical.c, binary_math.c (POW, FLOOR_DIV, FLOOR_MOD), unary_math.c
 * (FLOOR, CEIL, ROUND, ELU, GELU, RELU_N1_TO_1), normalization.c (L2_NORMALIZATION, LRN), space_batch.c,
 * mirror_pad.c, fill_range.c (FILL, ZEROS_LIKE, RANGE), cumsum.c, one_hot.c, compare_prelu_int8.c. */
enum {
    RL_OP_FLOOR = 8, RL_OP_L2_NORMALIZATION = 11, RL_OP_LOCAL_RESPONSE_NORMALIZATION = 13, RL_OP_RELU_N1_TO_1 = 20,
    RL_OP_BATCH_TO_SPACE_ND = 37, RL_OP_SPACE_TO_BATCH_ND = 38, RL_OP_ARG_MAX = 56, RL_OP_TILE = 69,
    RL_OP_POW = 78, RL_OP_ARG_MIN = 79, RL_OP_REDUCE_PROD = 81, RL_OP_LOGICAL_OR = 84, RL_OP_ONE_HOT = 85,
    RL_OP_LOGICAL_AND = 86, RL_OP_LOGICAL_NOT = 87, RL_OP_UNPACK = 88, RL_OP_FLOOR_DIV = 90, RL_OP_REDUCE_ANY = 91,
    RL_OP_ZEROS_LIKE = 93, RL_OP_FILL = 94, RL_OP_FLOOR_MOD = 95, RL_OP_RANGE = 96, RL_OP_MIRROR_PAD = 100,
    RL_OP_CEIL = 104, RL_OP_GATHER_ND = 107, RL_OP_ELU = 111, RL_OP_ROUND = 116, RL_OP_CUMSUM = 128,
    RL_OP_BROADCAST_TO = 130, RL_OP_GELU = 150
};
#define RL_DECLARE_OP(name)                                 \
    rl_status rl_prepare_##name(rl_plan *plan, rl_op *op); \
    rl_status rl_eval_##name(rl_plan *plan, rl_op *op)
RL_DECLARE_OP(unpack);
RL_DECLARE_OP(tile);
RL_DECLARE_OP(gather_nd);
RL_DECLARE_OP(arg_minmax);
RL_DECLARE_OP(reduce_prod_any);
RL_DECLARE_OP(logical);
RL_DECLARE_OP(binary_math);
RL_DECLARE_OP(unary_math);
RL_DECLARE_OP(normalization);
RL_DECLARE_OP(space_batch);
RL_DECLARE_OP(mirror_pad);
RL_DECLARE_OP(fill_range);
RL_DECLARE_OP(cumsum);
RL_DECLARE_OP(one_hot);
RL_DECLARE_OP(compare);
RL_DECLARE_OP(prelu);
/* ABS and SQUARED_DIFFERENCE: int8 in abs_sqdiff_int8.c, other dtypes on to elementwise.c. */
RL_DECLARE_OP(abs);
RL_DECLARE_OP(squared_difference);
/* int8 RSQRT, SQRT, LOG, EXP, ELU, GELU as tables (unary_math_int8.c); float ones on to elementwise.c, unary_math.c. */
RL_DECLARE_OP(unary_math_s8);
/* DIV: int8 in div_int8.c, other dtypes on to elementwise.c. */
RL_DECLARE_OP(div);

/* DENSIFY (densify.c): a sparse constant's format, decoded by the reader (tflite_reader.c) into the op's
 * scratch; its vectors point into the model's bytes. */
enum { RL_OP_DENSIFY = 124 };
typedef struct {
    const uint8_t *data;
    int64_t count;
    int32_t type; /* 0 int32, 1 uint16, 2 uint8 (SparseIndexVector's members, less one) */
} rl_sparse_vector;
typedef struct {
    int32_t format; /* 0 DENSE, 1 SPARSE_CSR */
    int32_t dense_size;
    rl_sparse_vector segments, indices;
} rl_sparse_level;
typedef struct {
    int32_t rank, n_levels, n_blocks;
    int32_t dense_dims[RL_MAX_DIMS];
    int32_t traversal_order[2 * RL_MAX_DIMS], block_map[RL_MAX_DIMS], block_size[RL_MAX_DIMS];
    rl_sparse_level levels[2 * RL_MAX_DIMS];
    int64_t n_values;
} rl_sparsity;
RL_DECLARE_OP(densify);
/* IF and WHILE over the program's subgraphs (control_flow.c). */
enum { RL_OP_IF = 118, RL_OP_WHILE = 119 };
RL_DECLARE_OP(if);
RL_DECLARE_OP(while);

/* REVERSE_V2 (reverse.c). */
enum { RL_OP_REVERSE_V2 = 105 };
RL_DECLARE_OP(reverse);
/* REDUCE_ALL (reduce_prod_any.c, beside REDUCE_ANY) and DYNAMIC_UPDATE_SLICE (dynamic_update_slice.c): the
 * decoder ops of litert-torch's GPT-2 with a KV cache. */
enum { RL_OP_REDUCE_ALL = 140, RL_OP_DYNAMIC_UPDATE_SLICE = 151 };
RL_DECLARE_OP(dynamic_update_slice);
/* RFFT2D (rfft2d.c), float32 to complex64. */
enum { RL_OP_RFFT2D = 131 };
RL_DECLARE_OP(rfft2d);
/* EMBEDDING_LOOKUP (embedding_lookup.c). */
enum { RL_OP_EMBEDDING_LOOKUP = 7 };
RL_DECLARE_OP(embedding_lookup);
/* MediaPipe's custom ops (mediapipe_custom.c), found by their custom names: internal codes past TFLite's. */
enum {
    RL_OP_CUSTOM_CONVOLUTION_2D_TRANSPOSE_BIAS = 100000, RL_OP_CUSTOM_MAX_POOLING_WITH_ARGMAX_2D = 100001,
    RL_OP_CUSTOM_MAX_UNPOOLING_2D = 100002
};
RL_DECLARE_OP(deconv_bias);
/* MaxPoolingWithArgmax2D and MaxUnpooling2D (mediapipe_pooling.c). */
RL_DECLARE_OP(argmax_pool);
RL_DECLARE_OP(unpool);
/* The internal code of custom op `name` (length bytes), or -1 when rillet has none (op_registry.c). */
int32_t rl_custom_op_code(const char *name, size_t length);
/* UNIDIRECTIONAL_SEQUENCE_LSTM (lstm.c), float32. */
enum { RL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 44 };
RL_DECLARE_OP(lstm);
void rl_reset_lstm(rl_op *op); /* h and c back to zero (reset_all_variables) */
/* ---- end of issue 11's ops ---- */

#endif
