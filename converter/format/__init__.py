"""The .tflite format layer: TFLite's flatbuffer schema, `load` and `save`. Imports nothing else of rillet,
so that the device-side runtime can use it alone."""

from .io import load, save, subgraph_references, validate
from .model import (
    Buffer,
    Metadata,
    ModelError,
    ModelFile,
    Operator,
    OperatorCode,
    Options,
    QuantizationParameters,
    SignatureDef,
    SubGraph,
    Tensor,
    TensorMap,
    builtin_name,
    tensor_type_name,
)
from .schema import BUILTIN_CODES, TENSOR_TYPES

__all__ = [
    "BUILTIN_CODES", "TENSOR_TYPES", "Buffer", "Metadata", "ModelError", "ModelFile", "Operator",
    "OperatorCode", "Options", "QuantizationParameters", "SignatureDef", "SubGraph", "Tensor", "TensorMap",
    "builtin_name", "load", "save", "subgraph_references", "tensor_type_name", "validate",
]
