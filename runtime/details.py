"""The detail dictionaries LiteRT's Interpreter returns (tensor details, op details), field for field and
type for type, from a model's tensors and a plan's current shapes."""

from typing import Any

import numpy as np

from rillet.converter.format import ModelError
from rillet.converter.format.schema import TENSOR_TYPE_DTYPES

# The numpy type LiteRT reports per TensorType (its TfLiteTypeToPyArrayType): numpy's twin, bytes for
# STRING, object for the handles (RESOURCE, VARIANT) a model's variables and lists are.
DETAIL_DTYPES: "dict[int, type]" = {code: np.dtype(name).type for code, name in TENSOR_TYPE_DTYPES.items()}
DETAIL_DTYPES.update({5: np.bytes_, 13: np.object_, 14: np.object_})


def tensor_details(tensor: Any, index: int, shape: "list[int]") -> "dict[str, Any]":
    """LiteRT's details of one tensor (`tensor`: its TensorFacts or the schema's Tensor, `shape` its current shape);
    ValueError for a type LiteRT has no numpy type for either (it leaves those out of its lists)."""
    if tensor.type not in DETAIL_DTYPES:
        raise ModelError(f"tensor {index} {tensor.name!r}: its type has no numpy type")
    q = tensor.quantization
    scales = np.array(q.scale if q and q.scale is not None else [], dtype=np.float32)
    zero_points = np.array(q.zero_point if q and q.zero_point is not None else [], dtype=np.int32)
    # LiteRT's deprecated per-tensor pair: set only when the tensor has one scale and one zero point.
    per_tensor = (float(scales[0]), int(zero_points[0])) if scales.size == 1 and zero_points.size == 1 else (0.0, 0)
    current = np.array(shape, dtype=np.int32)
    return {
        "name": tensor.name or "",
        "index": index,
        "shape": current,
        "shape_signature": np.array(tensor.shape_signature, dtype=np.int32) if tensor.shape_signature else current.copy(),
        "dtype": DETAIL_DTYPES[tensor.type],
        "quantization": per_tensor,
        "quantization_parameters": {
            "scales": scales,
            "zero_points": zero_points,
            "quantized_dimension": int(q.quantized_dimension or 0) if q else 0,
            "block_size": 0,
        },
        "sparsity_parameters": {},
    }


def op_details(index: int, name: str, inputs: "list[int] | None", outputs: "list[int] | None",
               dtype_of: Any) -> "dict[str, Any]":
    """LiteRT's `_get_op_details` entry: the op's index, its name (a custom op's code), its input and
    output tensor indices (-1 for an omitted optional input) and the types of those present."""
    ins = np.array(inputs or [], dtype=np.int32)
    outs = np.array(outputs or [], dtype=np.int32)
    return {
        "index": int(index),
        "op_name": name,
        "inputs": ins,
        "outputs": outs,
        "operand_types": [dtype_of(int(i)) for i in ins if i != -1],
        "result_types": [dtype_of(int(i)) for i in outs if i != -1],
    }
