"""TFLite's flatbuffer schema (version 3), as data: enums, unions and every table rillet reads or writes.

Transcribed from tensorflow/lite/schema/schema.fbs. A field's id is its position in its table's list, so
the order here *is* the binary format: new fields go at the end, deprecated ones keep their slot (a
`None` name), and a union takes two slots (its `_type` byte, then the value), as flatc lays them out.

Field types: a scalar name (bool, byte, ubyte, short, ushort, int, uint, long, ulong, float, double),
"string", a table name, "[T]" for a vector of any of these, and "union:NAME" for a union.
"""

from collections.abc import Iterator
from typing import Any

SCALARS: "dict[str, tuple[str, int]]" = {  # name -> (struct format, size)
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
_BUILTIN_OPERATORS = """
ADD AVERAGE_POOL_2D CONCATENATION CONV_2D DEPTHWISE_CONV_2D DEPTH_TO_SPACE DEQUANTIZE EMBEDDING_LOOKUP FLOOR
FULLY_CONNECTED HASHTABLE_LOOKUP L2_NORMALIZATION L2_POOL_2D LOCAL_RESPONSE_NORMALIZATION LOGISTIC
LSH_PROJECTION LSTM MAX_POOL_2D MUL RELU RELU_N1_TO_1 RELU6 RESHAPE RESIZE_BILINEAR RNN SOFTMAX
SPACE_TO_DEPTH SVDF TANH CONCAT_EMBEDDINGS SKIP_GRAM CALL CUSTOM EMBEDDING_LOOKUP_SPARSE PAD
UNIDIRECTIONAL_SEQUENCE_RNN GATHER BATCH_TO_SPACE_ND SPACE_TO_BATCH_ND TRANSPOSE MEAN SUB DIV SQUEEZE
UNIDIRECTIONAL_SEQUENCE_LSTM STRIDED_SLICE BIDIRECTIONAL_SEQUENCE_RNN EXP TOPK_V2 SPLIT LOG_SOFTMAX DELEGATE
BIDIRECTIONAL_SEQUENCE_LSTM CAST PRELU MAXIMUM ARG_MAX MINIMUM LESS NEG PADV2 GREATER GREATER_EQUAL
LESS_EQUAL SELECT SLICE SIN TRANSPOSE_CONV SPARSE_TO_DENSE TILE EXPAND_DIMS EQUAL NOT_EQUAL LOG SUM SQRT
RSQRT SHAPE POW ARG_MIN FAKE_QUANT REDUCE_PROD REDUCE_MAX PACK LOGICAL_OR ONE_HOT LOGICAL_AND LOGICAL_NOT
UNPACK REDUCE_MIN FLOOR_DIV REDUCE_ANY SQUARE ZEROS_LIKE FILL FLOOR_MOD RANGE RESIZE_NEAREST_NEIGHBOR
LEAKY_RELU SQUARED_DIFFERENCE MIRROR_PAD ABS SPLIT_V UNIQUE CEIL REVERSE_V2 ADD_N GATHER_ND COS WHERE RANK
ELU REVERSE_SEQUENCE MATRIX_DIAG QUANTIZE MATRIX_SET_DIAG ROUND HARD_SWISH IF WHILE NON_MAX_SUPPRESSION_V4
NON_MAX_SUPPRESSION_V5 SCATTER_ND SELECT_V2 DENSIFY SEGMENT_SUM BATCH_MATMUL
PLACEHOLDER_FOR_GREATER_OP_CODES CUMSUM CALL_ONCE BROADCAST_TO RFFT2D CONV_3D IMAG REAL COMPLEX_ABS
HASHTABLE HASHTABLE_FIND HASHTABLE_IMPORT HASHTABLE_SIZE REDUCE_ALL CONV_3D_TRANSPOSE VAR_HANDLE
READ_VARIABLE ASSIGN_VARIABLE BROADCAST_ARGS RANDOM_STANDARD_NORMAL BUCKETIZE RANDOM_UNIFORM MULTINOMIAL
GELU DYNAMIC_UPDATE_SLICE RELU_0_TO_1 UNSORTED_SEGMENT_PROD UNSORTED_SEGMENT_MAX UNSORTED_SEGMENT_SUM ATAN2
UNSORTED_SEGMENT_MIN SIGN BITCAST BITWISE_XOR RIGHT_SHIFT STABLEHLO_LOGISTIC STABLEHLO_ADD STABLEHLO_DIVIDE
STABLEHLO_MULTIPLY STABLEHLO_MAXIMUM STABLEHLO_RESHAPE STABLEHLO_CLAMP STABLEHLO_CONCATENATE
STABLEHLO_BROADCAST_IN_DIM STABLEHLO_CONVOLUTION STABLEHLO_SLICE STABLEHLO_CUSTOM_CALL STABLEHLO_REDUCE
STABLEHLO_ABS STABLEHLO_AND STABLEHLO_COSINE STABLEHLO_EXPONENTIAL STABLEHLO_FLOOR STABLEHLO_LOG
STABLEHLO_MINIMUM STABLEHLO_NEGATE STABLEHLO_OR STABLEHLO_POWER STABLEHLO_REMAINDER STABLEHLO_RSQRT
STABLEHLO_SELECT STABLEHLO_SUBTRACT STABLEHLO_TANH STABLEHLO_SCATTER STABLEHLO_COMPARE STABLEHLO_CONVERT
STABLEHLO_DYNAMIC_SLICE STABLEHLO_DYNAMIC_UPDATE_SLICE STABLEHLO_PAD STABLEHLO_IOTA STABLEHLO_DOT_GENERAL
STABLEHLO_REDUCE_WINDOW STABLEHLO_SORT STABLEHLO_WHILE STABLEHLO_GATHER STABLEHLO_TRANSPOSE DILATE
STABLEHLO_RNG_BIT_GENERATOR REDUCE_WINDOW
""".split()
BUILTIN_OPERATORS: "list[str | None]" = _BUILTIN_OPERATORS + [None] * (225 - len(_BUILTIN_OPERATORS)) + [
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
UNIONS: "dict[str, list[str | None]]" = {
    "BuiltinOptions": [None, *"""
Conv2DOptions DepthwiseConv2DOptions ConcatEmbeddingsOptions LSHProjectionOptions Pool2DOptions SVDFOptions
RNNOptions FullyConnectedOptions SoftmaxOptions ConcatenationOptions AddOptions L2NormOptions
LocalResponseNormalizationOptions LSTMOptions ResizeBilinearOptions CallOptions ReshapeOptions SkipGramOptions
SpaceToDepthOptions EmbeddingLookupSparseOptions MulOptions PadOptions GatherOptions BatchToSpaceNDOptions
SpaceToBatchNDOptions TransposeOptions ReducerOptions SubOptions DivOptions SqueezeOptions SequenceRNNOptions
StridedSliceOptions ExpOptions TopKV2Options SplitOptions LogSoftmaxOptions CastOptions DequantizeOptions
MaximumMinimumOptions ArgMaxOptions LessOptions NegOptions PadV2Options GreaterOptions GreaterEqualOptions
LessEqualOptions SelectOptions SliceOptions TransposeConvOptions SparseToDenseOptions TileOptions
ExpandDimsOptions EqualOptions NotEqualOptions ShapeOptions PowOptions ArgMinOptions FakeQuantOptions
PackOptions LogicalOrOptions OneHotOptions LogicalAndOptions LogicalNotOptions UnpackOptions FloorDivOptions
SquareOptions ZerosLikeOptions FillOptions BidirectionalSequenceLSTMOptions BidirectionalSequenceRNNOptions
UnidirectionalSequenceLSTMOptions FloorModOptions RangeOptions ResizeNearestNeighborOptions LeakyReluOptions
SquaredDifferenceOptions MirrorPadOptions AbsOptions SplitVOptions UniqueOptions ReverseV2Options AddNOptions
GatherNdOptions CosOptions WhereOptions RankOptions ReverseSequenceOptions MatrixDiagOptions QuantizeOptions
MatrixSetDiagOptions HardSwishOptions IfOptions WhileOptions DepthToSpaceOptions NonMaxSuppressionV4Options
NonMaxSuppressionV5Options ScatterNdOptions SelectV2Options DensifyOptions SegmentSumOptions BatchMatMulOptions
CumsumOptions CallOnceOptions BroadcastToOptions Rfft2dOptions Conv3DOptions HashtableOptions
HashtableFindOptions HashtableImportOptions HashtableSizeOptions VarHandleOptions ReadVariableOptions
AssignVariableOptions RandomOptions BucketizeOptions GeluOptions DynamicUpdateSliceOptions
UnsortedSegmentProdOptions UnsortedSegmentMaxOptions UnsortedSegmentMinOptions UnsortedSegmentSumOptions
ATan2Options SignOptions BitcastOptions BitwiseXorOptions RightShiftOptions
""".split()],
    "BuiltinOptions2": [None, *"""
StablehloConcatenateOptions StablehloBroadcastInDimOptions StablehloSliceOptions StablehloConvolutionOptions
StablehloCustomCallOptions StablehloReduceOptions StablehloScatterOptions StablehloCompareOptions
StablehloDynamicSliceOptions StablehloPadOptions StablehloIotaOptions StablehloDotGeneralOptions
StablehloReduceWindowOptions StablehloSortOptions StablehloWhileOptions StablehloGatherOptions
StablehloTransposeOptions DilateOptions StablehloRngBitGeneratorOptions ReduceWindowOptions
""".split()],
    "QuantizationDetails": [None, "CustomQuantization"],
    "SparseIndexVector": [None, "Int32Vector", "Uint16Vector", "Uint8Vector"],
}

Field = tuple  # (name | None, type, default)

# The structural tables, which every read of a model uses. The options tables follow as text (_OPTIONS_TEXT).
_STRUCTURE: "dict[str, list[Field]]" = {
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
}

# The options tables (the members of BuiltinOptions and BuiltinOptions2), one per line and its indented
# continuations: the table's name, then per field `name:type`, or `name:type:default` where the default is not
# the type's zero (0, 0.0, False; None for a string, vector or table), `-` for a deprecated field's name. A
# member with no fields has no line. Parsed one table at a time when first looked up (TABLES): as Python
# literals the ~200 tables cost every start ~2M instructions (x86) to unmarshal and build, and a start reads
# the few its model's operators use.
_OPTIONS_TEXT = """
Conv2DOptions padding:byte stride_w:int stride_h:int fused_activation_function:byte dilation_w_factor:int:1
    dilation_h_factor:int:1 quantized_bias_type:byte
DepthwiseConv2DOptions padding:byte stride_w:int stride_h:int depth_multiplier:int
    fused_activation_function:byte dilation_w_factor:int:1 dilation_h_factor:int:1
ConcatEmbeddingsOptions num_channels:int num_columns_per_channel:[int] embedding_dim_per_channel:[int]
LSHProjectionOptions type:byte
Pool2DOptions padding:byte stride_w:int stride_h:int filter_width:int filter_height:int
    fused_activation_function:byte
SVDFOptions rank:int fused_activation_function:byte asymmetric_quantize_inputs:bool
RNNOptions fused_activation_function:byte asymmetric_quantize_inputs:bool
FullyConnectedOptions fused_activation_function:byte weights_format:byte keep_num_dims:bool
    asymmetric_quantize_inputs:bool quantized_bias_type:byte
SoftmaxOptions beta:float
ConcatenationOptions axis:int fused_activation_function:byte
AddOptions fused_activation_function:byte pot_scale_int16:bool:True
L2NormOptions fused_activation_function:byte
LocalResponseNormalizationOptions radius:int bias:float alpha:float beta:float
LSTMOptions fused_activation_function:byte cell_clip:float proj_clip:float kernel_type:byte
    asymmetric_quantize_inputs:bool
ResizeBilinearOptions -:int -:int align_corners:bool half_pixel_centers:bool
CallOptions subgraph:uint
ReshapeOptions new_shape:[int]
SkipGramOptions ngram_size:int max_skip_size:int include_all_ngrams:bool
SpaceToDepthOptions block_size:int
EmbeddingLookupSparseOptions combiner:byte
MulOptions fused_activation_function:byte
GatherOptions axis:int batch_dims:int
ReducerOptions keep_dims:bool
SubOptions fused_activation_function:byte pot_scale_int16:bool:True
DivOptions fused_activation_function:byte
SqueezeOptions squeeze_dims:[int]
SequenceRNNOptions time_major:bool fused_activation_function:byte asymmetric_quantize_inputs:bool
StridedSliceOptions begin_mask:int end_mask:int ellipsis_mask:int new_axis_mask:int shrink_axis_mask:int
    offset:bool
SplitOptions num_splits:int
CastOptions in_data_type:byte out_data_type:byte
ArgMaxOptions output_type:byte
TransposeConvOptions padding:byte stride_w:int stride_h:int fused_activation_function:byte
    quantized_bias_type:byte
SparseToDenseOptions validate_indices:bool
ShapeOptions out_type:byte
ArgMinOptions output_type:byte
FakeQuantOptions min:float max:float num_bits:int narrow_range:bool
PackOptions values_count:int axis:int
OneHotOptions axis:int
UnpackOptions num:int axis:int
BidirectionalSequenceLSTMOptions fused_activation_function:byte cell_clip:float proj_clip:float
    merge_outputs:bool time_major:bool:True asymmetric_quantize_inputs:bool
BidirectionalSequenceRNNOptions time_major:bool fused_activation_function:byte merge_outputs:bool
    asymmetric_quantize_inputs:bool
UnidirectionalSequenceLSTMOptions fused_activation_function:byte cell_clip:float proj_clip:float
    time_major:bool asymmetric_quantize_inputs:bool diagonal_recurrent_tensors:bool
ResizeNearestNeighborOptions align_corners:bool half_pixel_centers:bool
LeakyReluOptions alpha:float
MirrorPadOptions mode:byte
SplitVOptions num_splits:int
UniqueOptions idx_out_type:byte:2
ReverseSequenceOptions seq_dim:int batch_dim:int
IfOptions then_subgraph_index:int else_subgraph_index:int
WhileOptions cond_subgraph_index:int body_subgraph_index:int
DepthToSpaceOptions block_size:int
BatchMatMulOptions adj_x:bool adj_y:bool asymmetric_quantize_inputs:bool
CumsumOptions exclusive:bool reverse:bool
CallOnceOptions init_subgraph_index:int
Conv3DOptions padding:byte stride_d:int stride_w:int stride_h:int fused_activation_function:byte
    dilation_d_factor:int:1 dilation_w_factor:int:1 dilation_h_factor:int:1
HashtableOptions table_id:int key_dtype:byte value_dtype:byte
VarHandleOptions container:string shared_name:string
RandomOptions seed:long seed2:long
BucketizeOptions boundaries:[float]
GeluOptions approximate:bool
StablehloConcatenateOptions dimension:long
StablehloBroadcastInDimOptions broadcast_dimensions:[long]
StablehloSliceOptions start_indices:[long] limit_indices:[long] strides:[long]
StablehloConvolutionOptions window_strides:[long] padding:[long] lhs_dilation:[long] rhs_dilation:[long]
    window_reversal:[bool] input_batch_dimension:long input_feature_dimension:long
    input_spatial_dimensions:[long] kernel_input_feature_dimension:long kernel_output_feature_dimension:long
    kernel_spatial_dimensions:[long] output_batch_dimension:long output_feature_dimension:long
    output_spatial_dimensions:[long] feature_group_count:long batch_group_count:long precision_config:[uint]
StablehloCustomCallOptions call_target_name:string has_side_effect:bool backend_config:string api_version:int
    called_computations:[int] custom_attributes:[ubyte]
StablehloReduceOptions dimensions:[long] body_subgraph_index:int
StablehloScatterOptions indices_are_sorted:bool update_window_dims:[long] inserted_window_dims:[long]
    scatter_dims_to_operand_dims:[long] index_vector_dim:long unique_indices:bool
    update_computation_subgraph_index:int
StablehloCompareOptions comparison_direction:uint compare_type:uint
StablehloDynamicSliceOptions slice_sizes:[long]
StablehloPadOptions edge_padding_low:[long] edge_padding_high:[long] interior_padding:[long]
StablehloIotaOptions iota_dimension:long
StablehloDotGeneralOptions lhs_batching_dimensions:[long] rhs_batching_dimensions:[long]
    lhs_contracting_dimensions:[long] rhs_contracting_dimensions:[long] precision_config:[uint]
StablehloReduceWindowOptions window_dimensions:[long] window_strides:[long] base_dilations:[long]
    window_dilations:[long] padding:[long] body_subgraph_index:int
StablehloSortOptions dimension:long is_stable:bool comparator_subgraph_index:int
StablehloWhileOptions cond_subgraph_index:int body_subgraph_index:int
StablehloGatherOptions offset_dims:[long] collapsed_slice_dims:[long] start_index_map:[long]
    index_vector_dim:long slice_sizes:[long] indices_are_sorted:bool
StablehloTransposeOptions permutation:[long]
StablehloRngBitGeneratorOptions algorithm:byte
ReduceWindowOptions reduce_function:int
"""


def _options_fields(name: str) -> "list[Field]":
    start = _OPTIONS_TEXT.find(f"\n{name} ")
    if start < 0:
        return []
    end = start
    while True:  # to the end of the table's last continuation line
        end = _OPTIONS_TEXT.find("\n", end + 1)
        if not _OPTIONS_TEXT.startswith(" ", end + 1):
            break
    fields = []
    for word in _OPTIONS_TEXT[start:end].split()[1:]:
        field, ftype, *given = word.split(":")
        if ftype == "bool":
            default: Any = given == ["True"]
        elif ftype in ("float", "double"):
            default = float(given[0]) if given else 0.0
        elif ftype in SCALARS:
            default = int(given[0]) if given else 0
        else:
            default = None
        fields.append((None if field == "-" else field, ftype, default))
    return fields


class _Tables(dict):
    """Every table's fields by table name, as one dict of lists would hold them; an options table is parsed
    from _OPTIONS_TEXT when first looked up and kept. Iterating (or len) parses them all first."""

    def __missing__(self, name: str) -> "list[Field]":
        if name not in _OPTIONS_NAMES:
            raise KeyError(name)
        fields = self[name] = _options_fields(name)
        return fields

    def __contains__(self, name: object) -> bool:
        return dict.__contains__(self, name) or name in _OPTIONS_NAMES

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    def _all(self) -> "_Tables":
        for name in _OPTIONS_NAMES:
            self[name]  # noqa: B018 - parses it
        return self

    def __iter__(self) -> "Iterator[str]":
        return dict.__iter__(self._all())

    def __len__(self) -> int:
        return dict.__len__(self._all())

    def keys(self) -> Any:
        return dict.keys(self._all())

    def values(self) -> Any:
        return dict.values(self._all())

    def items(self) -> Any:
        return dict.items(self._all())


_OPTIONS_NAMES = frozenset(UNIONS["BuiltinOptions"][1:] + UNIONS["BuiltinOptions2"][1:])
TABLES: "dict[str, list[Field]]" = _Tables(_STRUCTURE)


def union_of(field_type: str) -> "str | None":
    return field_type[len("union:"):] if field_type.startswith("union:") else None


def builtin_name(code: int) -> str:
    """The builtin operator's name for a code (3 -> "CONV_2D"); `BUILTIN_<code>` for one the schema lacks."""
    if 0 <= code < len(BUILTIN_OPERATORS) and BUILTIN_OPERATORS[code]:
        return BUILTIN_OPERATORS[code]
    return f"BUILTIN_{code}"


def tensor_type_name(type_code: int) -> str:
    """The tensor type's name for a code (9 -> "INT8"); `TYPE_<code>` for a code the schema lacks."""
    return TENSOR_TYPE_NAMES.get(type_code, f"TYPE_{type_code}")
