"""Operator versions for quantized ops, as TFLite's op_version.cc assigns them: LiteRT refuses an op whose
version is newer than its kernels, and a version too old hides from a reader what the op needs."""

from __future__ import annotations

INT8, FLOAT32, FLOAT16 = 9, 0, 1

# Ops whose version is 2 once their first input is int8.
_INT8_IS_2 = {
    "ADD", "SUB", "MUL", "MAX_POOL_2D", "AVERAGE_POOL_2D", "TRANSPOSE", "SLICE", "UNPACK", "RELU",
    "STRIDED_SLICE", "RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR", "MAXIMUM", "MINIMUM", "PACK",
    "SPACE_TO_BATCH_ND", "BATCH_TO_SPACE_ND", "TANH", "LOGISTIC", "BATCH_MATMUL", "PAD", "PADV2",
    "CONCATENATION", "SOFTMAX", "MEAN", "MIRROR_PAD", "REDUCE_MAX", "REDUCE_MIN", "RELU6", "RSQRT",
    "SPACE_TO_DEPTH", "SPLIT_V", "SUM", "LOG_SOFTMAX", "SQUARED_DIFFERENCE", "DEPTH_TO_SPACE", "GATHER",
    "ARG_MAX", "ARG_MIN", "ABS", "L2_NORMALIZATION", "EXP", "LOG", "REDUCE_PROD", "GELU", "EQUAL", "NOT_EQUAL",
    "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL",
}


def quantized_version(name: str, input_types: list[int], output_types: list[int], *, per_channel: bool,
                      options: object = None, scales: tuple[float, float, float] | None = None) -> int:
    """The version TFLite gives `name` with these tensor types (1 where quantization changes nothing)."""
    first = input_types[0] if input_types else -1
    second = input_types[1] if len(input_types) > 1 else -1
    out = output_types[0] if output_types else -1
    hybrid = first == FLOAT32 and second == INT8 and out == FLOAT32
    if name == "CONV_2D":
        return 3 if first == INT8 else (5 if per_channel else 2) if hybrid else 1
    if name == "TRANSPOSE_CONV" and out == INT8:  # TFLite: 4 with a fused activation, 3 with a bias, 2 int8
        activation = getattr(options, "fused_activation_function", 0)
        return 4 if activation else 3 if len(input_types) > 3 and input_types[3] != -1 else 2
    if name == "DEPTHWISE_CONV_2D":
        return 3 if first == INT8 else (6 if per_channel else 4) if hybrid else 1
    if name == "FULLY_CONNECTED":
        if hybrid:
            return 12 if per_channel else 9 if getattr(options, "asymmetric_quantize_inputs", False) else 3
        return 4 if first == INT8 else 1
    if name == "UNIDIRECTIONAL_SEQUENCE_LSTM" and first == FLOAT32 and out == FLOAT32 and \
            len(input_types) > 2 and input_types[2] == INT8:  # TFLite reads the forget gate's weights (CIFG)
        return 3 if getattr(options, "asymmetric_quantize_inputs", False) else 2
    if name == "BATCH_MATMUL" and hybrid:
        return 4 if getattr(options, "asymmetric_quantize_inputs", False) else 1
    if name == "MUL" and first == INT8 and scales and scales[2] and scales[0] * scales[1] / scales[2] >= 1.0:
        return 3
    if name == "SPLIT":
        return 2 if second == INT8 else 1
    if name in ("TILE", "BROADCAST_TO", "REVERSE_V2"):
        return 3 if first == INT8 else 1
    if name == "DEQUANTIZE":
        return 3 if first == FLOAT16 else (5 if per_channel else 2) if first == INT8 else 1
    if name == "QUANTIZE":
        return 3 if per_channel else 1
    if name in _INT8_IS_2 and first == INT8:
        return 2
    return 1
