"""Plain Python objects for a .tflite model: what `load` returns and `save` takes.

Field names are the schema's (tensorflow/lite/schema/schema.fbs), so a reader of TFLite's documentation
finds them under the same names. Scalar vectors are Python lists, except byte vectors (buffer data,
custom options), which are numpy uint8 views into the file: loading copies no weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .codec import ModelError
from .schema import TENSOR_TYPE_DTYPES, builtin_name, tensor_type_name

__all__ = ["Buffer", "Metadata", "ModelError", "ModelFile", "Operator", "OperatorCode", "Options",
           "QuantizationParameters", "SignatureDef", "SubGraph", "Tensor", "TensorMap", "builtin_name",
           "tensor_type_name"]


class Options:
    """The decoded options table of an operator (Conv2DOptions, ...), fields as attributes."""

    def __init__(self, type_name: str, **fields: Any) -> None:
        self.type_name = type_name
        self.__dict__.update(fields)

    def fields(self) -> dict[str, Any]:
        """The option fields by name (every attribute but `type_name`)."""
        return {k: v for k, v in self.__dict__.items() if k != "type_name"}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Options) and self.type_name == other.type_name and _same(
            self.fields(), other.fields()
        )

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.fields().items())
        return f"{self.type_name}({inner})"


def _same(a: Any, b: Any) -> bool:
    """Structural equality that treats numpy arrays by value (dataclass __eq__ cannot)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is not None and b is not None and np.array_equal(np.asarray(a), np.asarray(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "__dataclass_fields__") and type(a) is type(b):
        return all(_same(getattr(a, n), getattr(b, n)) for n, f in a.__dataclass_fields__.items() if f.compare)
    return a == b


class _Record:
    """Value equality for the dataclasses below, numpy fields included.

    Each dataclass below has a docstring: one without it has `dataclass` build one from
    inspect.signature, a cost every import of the format layer (and so every start of the runtime) pays.
    Each writes its own `__init__` (init=False) for the same reason: `dataclass` would compile one from
    source per class, about 0.7M instructions each (x86), ten of them on every start. The __init__ takes the
    fields in order with their defaults (a `default_factory` field: None, meaning a fresh one), which
    tests/converter/test_format_records.py checks against `dataclasses.fields`."""

    def same_as(self, other: object) -> bool:
        """Whether `other` has the same value, numpy array fields compared by value."""
        return _same(self, other)

    def __repr__(self) -> str:  # dataclass's own, written once here: it would exec a __repr__ per class
        fields = self.__dataclass_fields__.values()
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields if f.repr)
        return f"{type(self).__qualname__}({inner})"


@dataclass(eq=False, repr=False, init=False)
class QuantizationParameters(_Record):
    """A tensor's quantization: per-tensor or per-channel (along `quantized_dimension`) `scale` and
    `zero_point`, the calibrated `min` / `max`, and custom `details`. Fields as in TFLite's schema.fbs
    table of that name."""
    min: list[float] | None = None
    max: list[float] | None = None
    scale: list[float] | None = None
    zero_point: list[int] | None = None
    details: Options | None = None
    quantized_dimension: int = 0

    def __init__(self, min: list[float] | None = None, max: list[float] | None = None,
                 scale: list[float] | None = None, zero_point: list[int] | None = None,
                 details: Options | None = None, quantized_dimension: int = 0) -> None:
        self.min, self.max, self.scale, self.zero_point = min, max, scale, zero_point
        self.details, self.quantized_dimension = details, quantized_dimension


@dataclass(eq=False, repr=False, init=False)
class Tensor(_Record):
    """A tensor of a subgraph: `shape` (and `shape_signature`, -1 for a dynamic dimension), its `type` code
    (`tensor_type_name` names it), the `buffer` holding a constant's data (0: none), `name`, `quantization`,
    `is_variable`, `sparsity`. Fields as in TFLite's schema.fbs table of that name."""
    shape: list[int] | None = None
    type: int = 0
    buffer: int = 0
    name: str | None = None
    quantization: QuantizationParameters | None = None
    is_variable: bool = False
    sparsity: Options | None = None
    shape_signature: list[int] | None = None
    has_rank: bool = False
    variant_tensors: list[Options] | None = None

    def __init__(self, shape: list[int] | None = None, type: int = 0, buffer: int = 0,
                 name: str | None = None, quantization: QuantizationParameters | None = None,
                 is_variable: bool = False, sparsity: Options | None = None,
                 shape_signature: list[int] | None = None, has_rank: bool = False,
                 variant_tensors: list[Options] | None = None) -> None:
        self.shape, self.type, self.buffer, self.name = shape, type, buffer, name
        self.quantization, self.is_variable, self.sparsity = quantization, is_variable, sparsity
        self.shape_signature, self.has_rank, self.variant_tensors = shape_signature, has_rank, variant_tensors

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of this tensor's elements (ModelError for types numpy has no twin of)."""
        if self.type not in TENSOR_TYPE_DTYPES:
            raise ModelError(f"tensor {self.name!r}: type {tensor_type_name(self.type)} has no numpy dtype")
        return np.dtype(TENSOR_TYPE_DTYPES[self.type])


@dataclass(eq=False, repr=False, init=False)
class Operator(_Record):
    """One op of a subgraph: `opcode_index` into the model's operator_codes, the tensor indices of its
    `inputs` (-1: an optional input left out) and `outputs`, and its decoded `builtin_options` (an Options).
    Fields as in TFLite's schema.fbs table of that name."""
    opcode_index: int = 0
    inputs: list[int] | None = None
    outputs: list[int] | None = None
    builtin_options: Options | None = None
    custom_options: np.ndarray | None = None
    custom_options_format: int = 0
    mutating_variable_inputs: list[bool] | None = None
    intermediates: list[int] | None = None
    large_custom_options_offset: int = field(default=0, compare=False)  # where large files keep them
    large_custom_options_size: int = field(default=0, compare=False)
    builtin_options_2: Options | None = None

    def __init__(self, opcode_index: int = 0, inputs: list[int] | None = None,
                 outputs: list[int] | None = None, builtin_options: Options | None = None,
                 custom_options: np.ndarray | None = None, custom_options_format: int = 0,
                 mutating_variable_inputs: list[bool] | None = None, intermediates: list[int] | None = None,
                 large_custom_options_offset: int = 0, large_custom_options_size: int = 0,
                 builtin_options_2: Options | None = None) -> None:
        self.opcode_index, self.inputs, self.outputs = opcode_index, inputs, outputs
        self.builtin_options, self.custom_options = builtin_options, custom_options
        self.custom_options_format = custom_options_format
        self.mutating_variable_inputs = mutating_variable_inputs
        self.intermediates, self.large_custom_options_offset = intermediates, large_custom_options_offset
        self.large_custom_options_size, self.builtin_options_2 = large_custom_options_size, builtin_options_2


@dataclass(eq=False, repr=False, init=False)
class SubGraph(_Record):
    """A subgraph: its `tensors`, `operators` in execution order, and the tensor indices of its `inputs` and
    `outputs`. Fields as in TFLite's schema.fbs table of that name."""
    tensors: list[Tensor] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    operators: list[Operator] = field(default_factory=list)
    name: str | None = None

    def __init__(self, tensors: list[Tensor] | None = None, inputs: list[int] | None = None,
                 outputs: list[int] | None = None, operators: list[Operator] | None = None,
                 name: str | None = None) -> None:
        self.tensors = [] if tensors is None else tensors
        self.inputs = [] if inputs is None else inputs
        self.outputs = [] if outputs is None else outputs
        self.operators = [] if operators is None else operators
        self.name = name


@dataclass(eq=False, repr=False, init=False)
class Buffer(_Record):
    """Constant data. `data` is always filled on load, also for the offset/size form of large files,
    so where the bytes were stored (`offset`, `size`) is not part of a model's value."""
    data: np.ndarray | None = None
    offset: int = field(default=0, compare=False)
    size: int = field(default=0, compare=False)

    def __init__(self, data: np.ndarray | None = None, offset: int = 0, size: int = 0) -> None:
        self.data, self.offset, self.size = data, offset, size


@dataclass(eq=False, repr=False, init=False)
class OperatorCode(_Record):
    """Which op an operator runs: a builtin code (`code` reconciles the old and new fields) or a
    `custom_code` name, and the op's `version`. Fields as in TFLite's schema.fbs table of that name."""
    deprecated_builtin_code: int = 0
    custom_code: str | None = None
    version: int = 1
    builtin_code: int = 0

    def __init__(self, deprecated_builtin_code: int = 0, custom_code: str | None = None, version: int = 1,
                 builtin_code: int = 0) -> None:
        self.deprecated_builtin_code, self.custom_code = deprecated_builtin_code, custom_code
        self.version, self.builtin_code = version, builtin_code

    @property
    def code(self) -> int:
        """The builtin operator code, from whichever of the two schema fields holds it (TFLite's rule)."""
        # Old files set only the int8 field, new ones both; TFLite takes the larger of the two.
        return max(self.deprecated_builtin_code, self.builtin_code)

    @property
    def name(self) -> str:
        """The builtin's name (CONV_2D), or the custom code for a custom operator."""
        if self.code == 32 and self.custom_code is not None:  # 32 is CUSTOM
            return self.custom_code
        return builtin_name(self.code)

    @property
    def is_custom(self) -> bool:
        """Whether this is a custom op (builtin code CUSTOM): `custom_code` names it."""
        return self.code == 32


@dataclass(eq=False, repr=False, init=False)
class Metadata(_Record):
    """A named metadata entry pointing at a buffer (e.g. "min_runtime_version"). Fields as in TFLite's
    schema.fbs table of that name."""
    name: str | None = None
    buffer: int = 0

    def __init__(self, name: str | None = None, buffer: int = 0) -> None:
        self.name, self.buffer = name, buffer


@dataclass(eq=False, repr=False, init=False)
class TensorMap(_Record):
    """A signature's name for one tensor (`tensor_index` of the signature's subgraph). Fields as in TFLite's
    schema.fbs table of that name."""
    name: str | None = None
    tensor_index: int = 0

    def __init__(self, name: str | None = None, tensor_index: int = 0) -> None:
        self.name, self.tensor_index = name, tensor_index


@dataclass(eq=False, repr=False, init=False)
class SignatureDef(_Record):
    """A signature: its `signature_key`, the `subgraph_index` it runs, and its named `inputs` and `outputs`
    (TensorMaps). Fields as in TFLite's schema.fbs table of that name."""
    inputs: list[TensorMap] = field(default_factory=list)
    outputs: list[TensorMap] = field(default_factory=list)
    signature_key: str | None = None
    subgraph_index: int = 0

    def __init__(self, inputs: list[TensorMap] | None = None, outputs: list[TensorMap] | None = None,
                 signature_key: str | None = None, subgraph_index: int = 0) -> None:
        self.inputs = [] if inputs is None else inputs
        self.outputs = [] if outputs is None else outputs
        self.signature_key, self.subgraph_index = signature_key, subgraph_index


@dataclass(eq=False, repr=False, init=False)
class ModelFile(_Record):
    """A whole .tflite model as plain objects, as `load` returns it and `save` writes it: `version`,
    `operator_codes`, `subgraphs`, `buffers`, `signature_defs`, `description` and `metadata`. Fields as in
    TFLite's schema.fbs table of that name; `op_name` and `tensor_data` read it."""
    version: int = 3
    operator_codes: list[OperatorCode] = field(default_factory=list)
    subgraphs: list[SubGraph] = field(default_factory=list)
    description: str | None = None
    buffers: list[Buffer] = field(default_factory=list)
    metadata_buffer: list[int] | None = None
    metadata: list[Metadata] | None = None
    signature_defs: list[SignatureDef] | None = None

    def __init__(self, version: int = 3, operator_codes: list[OperatorCode] | None = None,
                 subgraphs: list[SubGraph] | None = None, description: str | None = None,
                 buffers: list[Buffer] | None = None, metadata_buffer: list[int] | None = None,
                 metadata: list[Metadata] | None = None,
                 signature_defs: list[SignatureDef] | None = None) -> None:
        self.version = version
        self.operator_codes = [] if operator_codes is None else operator_codes
        self.subgraphs = [] if subgraphs is None else subgraphs
        self.description = description
        self.buffers = [] if buffers is None else buffers
        self.metadata_buffer, self.metadata, self.signature_defs = metadata_buffer, metadata, signature_defs

    def op_name(self, op: Operator) -> str:
        """The name of what `op` runs: CONV_2D, or a custom op's code."""
        return self.operator_codes[op.opcode_index].name

    def tensor_data(self, subgraph: int, tensor: int) -> np.ndarray | None:
        """The constant value of a tensor as a typed, shaped, read-only view; None if it has no data."""
        t = self.subgraphs[subgraph].tensors[tensor]
        raw = self.buffers[t.buffer].data if t.buffer < len(self.buffers) else None
        if raw is None or raw.size == 0:
            return None
        shape = tuple(t.shape or ())
        dtype = t.dtype
        count = int(np.prod(shape, dtype=np.int64))
        if count * dtype.itemsize != raw.size:
            raise ModelError(
                f"tensor {tensor} {t.name!r}: buffer {t.buffer} holds {raw.size} bytes, "
                f"shape {list(shape)} of {dtype.name} needs {count * dtype.itemsize}"
            )
        return raw.view(dtype).reshape(shape)

