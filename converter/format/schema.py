"""TFLite's flatbuffer schema (version 3), as data: enums, unions and every table rillet reads or writes.

Transcribed from tensorflow/lite/schema/schema.fbs. A field's id is its position in its table's list, so
the order here *is* the binary format: new fields go at the end, deprecated ones keep their slot (a
`None` name), and a union takes two slots (its `_type` byte, then the value), as flatc lays them out.

Field types: a scalar name (bool, byte, ubyte, short, ushort, int, uint, long, ulong, float, double),
"string", a table name, "[T]" for a vector of any of these, and "union:NAME" for a union.
"""

from __future__ import annotations

SCALARS: dict[str, tuple[str, int]] = {  # name -> (struct format, size)
    "bool": ("?", 1), "byte": ("b", 1), "ubyte": ("B", 1), "short": ("h", 2), "ushort": ("H", 2),
    "int": ("i", 4), "uint": ("I", 4), "long": ("q", 8), "ulong": ("Q", 8),
    "float": ("f", 4), "double": ("d", 8),
}

FILE_IDENTIFIER = b"TFL3"
SCHEMA_VERSION = 3

TENSOR_TYPE_NAMES = {
    0: "FLOAT32", 1: "FLOAT16", 2: "INT32", 3: "UINT8", 4: "INT64", 5: "STRING", 6: "BOOL", 7: "INT16",
    8: "COMPLEX64", 9: "INT8", 10: "FLOAT64", 11: "COMPLEX128", 12: "UINT64", 13: "RESOURCE",
    14: "VARIANT", 15: "UINT32", 16: "UINT16", 17: "INT4",
}
TENSOR_TYPES = {name: code for code, name in TENSOR_TYPE_NAMES.items()}
"""TFLite's tensor type codes by name ("FLOAT32": 0, "INT8": 9, ...)."""

# numpy twins of TensorType; RESOURCE and VARIANT are handles (TFLite stores them as int32-sized slots
# it never reads as data), STRING is TFLite's own packed format, INT4 packs two values a byte.
TENSOR_TYPE_DTYPES = {
    0: "float32", 1: "float16", 2: "int32", 3: "uint8", 4: "int64", 5: "uint8", 6: "bool", 7: "int16",
    8: "complex64", 9: "int8", 10: "float64", 11: "complex128", 12: "uint64", 15: "uint32",
    16: "uint16",
}

# BuiltinOperator: the name at index `code`; None marks a code TFLite never assigned.
_BUILTIN_OPERATORS = ["ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2", "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC", "STABLEHLO_ADD", "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_RESHAPE", "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM", "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE", "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR", "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE", "STABLEHLO_OR", "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT", "STABLEHLO_SELECT", "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE", "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE", "STABLEHLO_PAD", "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT", "STABLEHLO_WHILE", "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE", "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW"]
BUILTIN_OPERATORS: list[str | None] = _BUILTIN_OPERATORS + [None] * (225 - len(_BUILTIN_OPERATORS)) + [
    "TEMP_STREAMING_CONV_2D"
]
BUILTIN_CODES = {name: code for code, name in enumerate(BUILTIN_OPERATORS) if name}
"""TFLite's builtin operator codes by name ("ADD": 0, "CONV_2D": 3, ...)."""
CUSTOM_CODE = BUILTIN_CODES["CUSTOM"]
# The int8 `deprecated_builtin_code` holds codes below this; larger ones live only in `builtin_code`.
PLACEHOLDER_FOR_GREATER_OP_CODES = BUILTIN_CODES["PLACEHOLDER_FOR_GREATER_OP_CODES"]

PADDING = {0: "SAME", 1: "VALID"}
ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU_N1_TO_1", 3: "RELU6", 4: "TANH", 5: "SIGN_BIT"}

# Union members, by their type code (code 0 is NONE).
UNIONS: dict[str, list[str | None]] = {
    "BuiltinOptions": [None] + ["Conv2DOptions", "DepthwiseConv2DOptions", "ConcatEmbeddingsOptions", "LSHProjectionOptions", "Pool2DOptions", "SVDFOptions", "RNNOptions", "FullyConnectedOptions", "SoftmaxOptions", "ConcatenationOptions", "AddOptions", "L2NormOptions", "LocalResponseNormalizationOptions", "LSTMOptions", "ResizeBilinearOptions", "CallOptions", "ReshapeOptions", "SkipGramOptions", "SpaceToDepthOptions", "EmbeddingLookupSparseOptions", "MulOptions", "PadOptions", "GatherOptions", "BatchToSpaceNDOptions", "SpaceToBatchNDOptions", "TransposeOptions", "ReducerOptions", "SubOptions", "DivOptions", "SqueezeOptions", "SequenceRNNOptions", "StridedSliceOptions", "ExpOptions", "TopKV2Options", "SplitOptions", "LogSoftmaxOptions", "CastOptions", "DequantizeOptions", "MaximumMinimumOptions", "ArgMaxOptions", "LessOptions", "NegOptions", "PadV2Options", "GreaterOptions", "GreaterEqualOptions", "LessEqualOptions", "SelectOptions", "SliceOptions", "TransposeConvOptions", "SparseToDenseOptions", "TileOptions", "ExpandDimsOptions", "EqualOptions", "NotEqualOptions", "ShapeOptions", "PowOptions", "ArgMinOptions", "FakeQuantOptions", "PackOptions", "LogicalOrOptions", "OneHotOptions", "LogicalAndOptions", "LogicalNotOptions", "UnpackOptions", "FloorDivOptions", "SquareOptions", "ZerosLikeOptions", "FillOptions", "BidirectionalSequenceLSTMOptions", "BidirectionalSequenceRNNOptions", "UnidirectionalSequenceLSTMOptions", "FloorModOptions", "RangeOptions", "ResizeNearestNeighborOptions", "LeakyReluOptions", "SquaredDifferenceOptions", "MirrorPadOptions", "AbsOptions", "SplitVOptions", "UniqueOptions", "ReverseV2Options", "AddNOptions", "GatherNdOptions", "CosOptions", "WhereOptions", "RankOptions", "ReverseSequenceOptions", "MatrixDiagOptions", "QuantizeOptions", "MatrixSetDiagOptions", "HardSwishOptions", "IfOptions", "WhileOptions", "DepthToSpaceOptions", "NonMaxSuppressionV4Options", "NonMaxSuppressionV5Options", "ScatterNdOptions", "SelectV2Options", "DensifyOptions", "SegmentSumOptions", "BatchMatMulOptions", "CumsumOptions", "CallOnceOptions", "BroadcastToOptions", "Rfft2dOptions", "Conv3DOptions", "HashtableOptions", "HashtableFindOptions", "HashtableImportOptions", "HashtableSizeOptions", "VarHandleOptions", "ReadVariableOptions", "AssignVariableOptions", "RandomOptions", "BucketizeOptions", "GeluOptions", "DynamicUpdateSliceOptions", "UnsortedSegmentProdOptions", "UnsortedSegmentMaxOptions", "UnsortedSegmentMinOptions", "UnsortedSegmentSumOptions", "ATan2Options", "SignOptions", "BitcastOptions", "BitwiseXorOptions", "RightShiftOptions"],
    "BuiltinOptions2": [None] + ["StablehloConcatenateOptions", "StablehloBroadcastInDimOptions", "StablehloSliceOptions", "StablehloConvolutionOptions", "StablehloCustomCallOptions", "StablehloReduceOptions", "StablehloScatterOptions", "StablehloCompareOptions", "StablehloDynamicSliceOptions", "StablehloPadOptions", "StablehloIotaOptions", "StablehloDotGeneralOptions", "StablehloReduceWindowOptions", "StablehloSortOptions", "StablehloWhileOptions", "StablehloGatherOptions", "StablehloTransposeOptions", "DilateOptions", "StablehloRngBitGeneratorOptions", "ReduceWindowOptions"],
    "QuantizationDetails": [None, "CustomQuantization"],
    "SparseIndexVector": [None, "Int32Vector", "Uint16Vector", "Uint8Vector"],
}

Field = tuple  # (name | None, type, default)
_ACT = ("fused_activation_function", "byte", 0)

TABLES: dict[str, list[Field]] = {
    # --- the model's structure ---
    "Model": [
        ("version", "uint", 0), ("operator_codes", "[OperatorCode]", None),
        ("subgraphs", "[SubGraph]", None), ("description", "string", None),
        ("buffers", "[Buffer]", None), ("metadata_buffer", "[int]", None),
        ("metadata", "[Metadata]", None), ("signature_defs", "[SignatureDef]", None),
    ],
    "OperatorCode": [
        ("deprecated_builtin_code", "byte", 0), ("custom_code", "string", None),
        ("version", "int", 1), ("builtin_code", "int", 0),
    ],
    "SubGraph": [
        ("tensors", "[Tensor]", None), ("inputs", "[int]", None), ("outputs", "[int]", None),
        ("operators", "[Operator]", None), ("name", "string", None),
    ],
    "Tensor": [
        ("shape", "[int]", None), ("type", "byte", 0), ("buffer", "uint", 0), ("name", "string", None),
        ("quantization", "QuantizationParameters", None), ("is_variable", "bool", False),
        ("sparsity", "SparsityParameters", None), ("shape_signature", "[int]", None),
        ("has_rank", "bool", False), ("variant_tensors", "[VariantSubType]", None),
    ],
    "Operator": [
        ("opcode_index", "uint", 0), ("inputs", "[int]", None), ("outputs", "[int]", None),
        ("builtin_options", "union:BuiltinOptions", None), ("custom_options", "[ubyte]", None),
        ("custom_options_format", "byte", 0), ("mutating_variable_inputs", "[bool]", None),
        ("intermediates", "[int]", None), ("large_custom_options_offset", "ulong", 0),
        ("large_custom_options_size", "ulong", 0), ("builtin_options_2", "union:BuiltinOptions2", None),
    ],
    "Buffer": [("data", "[ubyte]", None), ("offset", "ulong", 0), ("size", "ulong", 0)],
    "Metadata": [("name", "string", None), ("buffer", "uint", 0)],
    "TensorMap": [("name", "string", None), ("tensor_index", "uint", 0)],
    "SignatureDef": [
        ("inputs", "[TensorMap]", None), ("outputs", "[TensorMap]", None),
        ("signature_key", "string", None), (None, "string", None), ("subgraph_index", "uint", 0),
    ],
    "QuantizationParameters": [
        ("min", "[float]", None), ("max", "[float]", None), ("scale", "[float]", None),
        ("zero_point", "[long]", None), ("details", "union:QuantizationDetails", None),
        ("quantized_dimension", "int", 0),
    ],
    "CustomQuantization": [("custom", "[ubyte]", None)],
    "SparsityParameters": [
        ("traversal_order", "[int]", None), ("block_map", "[int]", None),
        ("dim_metadata", "[DimensionMetadata]", None),
    ],
    "DimensionMetadata": [
        ("format", "byte", 0), ("dense_size", "int", 0),
        ("array_segments", "union:SparseIndexVector", None),
        ("array_indices", "union:SparseIndexVector", None),
    ],
    "Int32Vector": [("values", "[int]", None)],
    "Uint16Vector": [("values", "[ushort]", None)],
    "Uint8Vector": [("values", "[ubyte]", None)],
    "VariantSubType": [("shape", "[int]", None), ("type", "byte", 0), ("has_rank", "bool", False)],
    # --- BuiltinOptions ---
    "Conv2DOptions": [
        ("padding", "byte", 0), ("stride_w", "int", 0), ("stride_h", "int", 0), _ACT,
        ("dilation_w_factor", "int", 1), ("dilation_h_factor", "int", 1), ("quantized_bias_type", "byte", 0),
    ],
    "Conv3DOptions": [
        ("padding", "byte", 0), ("stride_d", "int", 0), ("stride_w", "int", 0), ("stride_h", "int", 0),
        _ACT, ("dilation_d_factor", "int", 1), ("dilation_w_factor", "int", 1),
        ("dilation_h_factor", "int", 1),
    ],
    "Pool2DOptions": [
        ("padding", "byte", 0), ("stride_w", "int", 0), ("stride_h", "int", 0),
        ("filter_width", "int", 0), ("filter_height", "int", 0), _ACT,
    ],
    "DepthwiseConv2DOptions": [
        ("padding", "byte", 0), ("stride_w", "int", 0), ("stride_h", "int", 0),
        ("depth_multiplier", "int", 0), _ACT, ("dilation_w_factor", "int", 1),
        ("dilation_h_factor", "int", 1),
    ],
    "ConcatEmbeddingsOptions": [
        ("num_channels", "int", 0), ("num_columns_per_channel", "[int]", None),
        ("embedding_dim_per_channel", "[int]", None),
    ],
    "LSHProjectionOptions": [("type", "byte", 0)],
    "SVDFOptions": [("rank", "int", 0), _ACT, ("asymmetric_quantize_inputs", "bool", False)],
    "RNNOptions": [_ACT, ("asymmetric_quantize_inputs", "bool", False)],
    "SequenceRNNOptions": [("time_major", "bool", False), _ACT, ("asymmetric_quantize_inputs", "bool", False)],
    "BidirectionalSequenceRNNOptions": [
        ("time_major", "bool", False), _ACT, ("merge_outputs", "bool", False),
        ("asymmetric_quantize_inputs", "bool", False),
    ],
    "FullyConnectedOptions": [
        _ACT, ("weights_format", "byte", 0), ("keep_num_dims", "bool", False),
        ("asymmetric_quantize_inputs", "bool", False), ("quantized_bias_type", "byte", 0),
    ],
    "SoftmaxOptions": [("beta", "float", 0.0)],
    "ConcatenationOptions": [("axis", "int", 0), _ACT],
    "AddOptions": [_ACT, ("pot_scale_int16", "bool", True)],
    "MulOptions": [_ACT],
    "L2NormOptions": [_ACT],
    "LocalResponseNormalizationOptions": [
        ("radius", "int", 0), ("bias", "float", 0.0), ("alpha", "float", 0.0), ("beta", "float", 0.0),
    ],
    "LSTMOptions": [
        _ACT, ("cell_clip", "float", 0.0), ("proj_clip", "float", 0.0), ("kernel_type", "byte", 0),
        ("asymmetric_quantize_inputs", "bool", False),
    ],
    "UnidirectionalSequenceLSTMOptions": [
        _ACT, ("cell_clip", "float", 0.0), ("proj_clip", "float", 0.0), ("time_major", "bool", False),
        ("asymmetric_quantize_inputs", "bool", False), ("diagonal_recurrent_tensors", "bool", False),
    ],
    "BidirectionalSequenceLSTMOptions": [
        _ACT, ("cell_clip", "float", 0.0), ("proj_clip", "float", 0.0), ("merge_outputs", "bool", False),
        ("time_major", "bool", True), ("asymmetric_quantize_inputs", "bool", False),
    ],
    "ResizeBilinearOptions": [
        (None, "int", 0), (None, "int", 0), ("align_corners", "bool", False),
        ("half_pixel_centers", "bool", False),
    ],
    "ResizeNearestNeighborOptions": [("align_corners", "bool", False), ("half_pixel_centers", "bool", False)],
    "CallOptions": [("subgraph", "uint", 0)],
    "ReshapeOptions": [("new_shape", "[int]", None)],
    "SkipGramOptions": [
        ("ngram_size", "int", 0), ("max_skip_size", "int", 0), ("include_all_ngrams", "bool", False),
    ],
    "SpaceToDepthOptions": [("block_size", "int", 0)],
    "DepthToSpaceOptions": [("block_size", "int", 0)],
    "SubOptions": [_ACT, ("pot_scale_int16", "bool", True)],
    "DivOptions": [_ACT],
    "EmbeddingLookupSparseOptions": [("combiner", "byte", 0)],
    "GatherOptions": [("axis", "int", 0), ("batch_dims", "int", 0)],
    "ReducerOptions": [("keep_dims", "bool", False)],
    "SqueezeOptions": [("squeeze_dims", "[int]", None)],
    "SplitOptions": [("num_splits", "int", 0)],
    "SplitVOptions": [("num_splits", "int", 0)],
    "StridedSliceOptions": [
        ("begin_mask", "int", 0), ("end_mask", "int", 0), ("ellipsis_mask", "int", 0),
        ("new_axis_mask", "int", 0), ("shrink_axis_mask", "int", 0), ("offset", "bool", False),
    ],
    "CastOptions": [("in_data_type", "byte", 0), ("out_data_type", "byte", 0)],
    "ArgMaxOptions": [("output_type", "byte", 0)],
    "ArgMinOptions": [("output_type", "byte", 0)],
    "TransposeConvOptions": [
        ("padding", "byte", 0), ("stride_w", "int", 0), ("stride_h", "int", 0), _ACT,
        ("quantized_bias_type", "byte", 0),
    ],
    "SparseToDenseOptions": [("validate_indices", "bool", False)],
    "ShapeOptions": [("out_type", "byte", 0)],
    "FakeQuantOptions": [
        ("min", "float", 0.0), ("max", "float", 0.0), ("num_bits", "int", 0), ("narrow_range", "bool", False),
    ],
    "PackOptions": [("values_count", "int", 0), ("axis", "int", 0)],
    "OneHotOptions": [("axis", "int", 0)],
    "UnpackOptions": [("num", "int", 0), ("axis", "int", 0)],
    "LeakyReluOptions": [("alpha", "float", 0.0)],
    "MirrorPadOptions": [("mode", "byte", 0)],
    "UniqueOptions": [("idx_out_type", "byte", 2)],
    "ReverseSequenceOptions": [("seq_dim", "int", 0), ("batch_dim", "int", 0)],
    "IfOptions": [("then_subgraph_index", "int", 0), ("else_subgraph_index", "int", 0)],
    "CallOnceOptions": [("init_subgraph_index", "int", 0)],
    "WhileOptions": [("cond_subgraph_index", "int", 0), ("body_subgraph_index", "int", 0)],
    "BatchMatMulOptions": [
        ("adj_x", "bool", False), ("adj_y", "bool", False), ("asymmetric_quantize_inputs", "bool", False),
    ],
    "CumsumOptions": [("exclusive", "bool", False), ("reverse", "bool", False)],
    "HashtableOptions": [("table_id", "int", 0), ("key_dtype", "byte", 0), ("value_dtype", "byte", 0)],
    "VarHandleOptions": [("container", "string", None), ("shared_name", "string", None)],
    "RandomOptions": [("seed", "long", 0), ("seed2", "long", 0)],
    "BucketizeOptions": [("boundaries", "[float]", None)],
    "GeluOptions": [("approximate", "bool", False)],
    # --- BuiltinOptions2 ---
    "StablehloConcatenateOptions": [("dimension", "long", 0)],
    "StablehloBroadcastInDimOptions": [("broadcast_dimensions", "[long]", None)],
    "StablehloSliceOptions": [
        ("start_indices", "[long]", None), ("limit_indices", "[long]", None), ("strides", "[long]", None),
    ],
    "StablehloConvolutionOptions": [
        ("window_strides", "[long]", None), ("padding", "[long]", None), ("lhs_dilation", "[long]", None),
        ("rhs_dilation", "[long]", None), ("window_reversal", "[bool]", None),
        ("input_batch_dimension", "long", 0), ("input_feature_dimension", "long", 0),
        ("input_spatial_dimensions", "[long]", None), ("kernel_input_feature_dimension", "long", 0),
        ("kernel_output_feature_dimension", "long", 0), ("kernel_spatial_dimensions", "[long]", None),
        ("output_batch_dimension", "long", 0), ("output_feature_dimension", "long", 0),
        ("output_spatial_dimensions", "[long]", None), ("feature_group_count", "long", 0),
        ("batch_group_count", "long", 0), ("precision_config", "[uint]", None),
    ],
    "StablehloCustomCallOptions": [
        ("call_target_name", "string", None), ("has_side_effect", "bool", False),
        ("backend_config", "string", None), ("api_version", "int", 0),
        ("called_computations", "[int]", None), ("custom_attributes", "[ubyte]", None),
    ],
    "StablehloReduceOptions": [("dimensions", "[long]", None), ("body_subgraph_index", "int", 0)],
    "StablehloScatterOptions": [
        ("indices_are_sorted", "bool", False), ("update_window_dims", "[long]", None),
        ("inserted_window_dims", "[long]", None), ("scatter_dims_to_operand_dims", "[long]", None),
        ("index_vector_dim", "long", 0), ("unique_indices", "bool", False),
        ("update_computation_subgraph_index", "int", 0),
    ],
    "StablehloCompareOptions": [("comparison_direction", "uint", 0), ("compare_type", "uint", 0)],
    "StablehloDynamicSliceOptions": [("slice_sizes", "[long]", None)],
    "StablehloPadOptions": [
        ("edge_padding_low", "[long]", None), ("edge_padding_high", "[long]", None),
        ("interior_padding", "[long]", None),
    ],
    "StablehloIotaOptions": [("iota_dimension", "long", 0)],
    "StablehloDotGeneralOptions": [
        ("lhs_batching_dimensions", "[long]", None), ("rhs_batching_dimensions", "[long]", None),
        ("lhs_contracting_dimensions", "[long]", None), ("rhs_contracting_dimensions", "[long]", None),
        ("precision_config", "[uint]", None),
    ],
    "StablehloReduceWindowOptions": [
        ("window_dimensions", "[long]", None), ("window_strides", "[long]", None),
        ("base_dilations", "[long]", None), ("window_dilations", "[long]", None),
        ("padding", "[long]", None), ("body_subgraph_index", "int", 0),
    ],
    "StablehloSortOptions": [
        ("dimension", "long", 0), ("is_stable", "bool", False), ("comparator_subgraph_index", "int", 0),
    ],
    "StablehloWhileOptions": [("cond_subgraph_index", "int", 0), ("body_subgraph_index", "int", 0)],
    "StablehloGatherOptions": [
        ("offset_dims", "[long]", None), ("collapsed_slice_dims", "[long]", None),
        ("start_index_map", "[long]", None), ("index_vector_dim", "long", 0),
        ("slice_sizes", "[long]", None), ("indices_are_sorted", "bool", False),
    ],
    "StablehloTransposeOptions": [("permutation", "[long]", None)],
    "StablehloRngBitGeneratorOptions": [("algorithm", "byte", 0)],
    "ReduceWindowOptions": [("reduce_function", "int", 0)],
}

# Options tables with no fields: TFLite writes them empty, and so do we, so that they round-trip.
for _union in ("BuiltinOptions", "BuiltinOptions2"):
    for _name in UNIONS[_union][1:]:
        TABLES.setdefault(_name, [])


def union_of(field_type: str) -> str | None:
    return field_type[len("union:"):] if field_type.startswith("union:") else None


def builtin_name(code: int) -> str:
    """The builtin operator's name for a code (3 -> "CONV_2D"); `BUILTIN_<code>` for one the schema lacks."""
    if 0 <= code < len(BUILTIN_OPERATORS) and BUILTIN_OPERATORS[code]:
        return BUILTIN_OPERATORS[code]
    return f"BUILTIN_{code}"


def tensor_type_name(type_code: int) -> str:
    """The tensor type's name for a code (9 -> "INT8"); `TYPE_<code>` for a code the schema lacks."""
    return TENSOR_TYPE_NAMES.get(type_code, f"TYPE_{type_code}")
