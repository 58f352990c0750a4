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
from .view import LazyList, ModelView, SubGraphView

__all__ = [
    "BUILTIN_CODES", "TENSOR_TYPES", "Buffer", "LazyList", "Metadata", "ModelError", "ModelFile", "ModelView",
    "Operator", "OperatorCode", "Options", "QuantizationParameters", "SignatureDef", "SubGraph", "SubGraphView",
    "Tensor", "TensorMap", "builtin_name", "load", "save", "subgraph_references", "tensor_type_name", "validate",
]
