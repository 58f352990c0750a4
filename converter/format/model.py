"""Plain Python objects for a .tflite model: what `load` returns and `save` takes.

Field names are the schema's (tensorflow/lite/schema/schema.fbs), so a reader of TFLite's documentation
finds them under the same names. Scalar vectors are Python lists, except byte vectors (buffer data,
custom options), which are numpy uint8 views into the file: loading copies no weights.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .schema import BUILTIN_OPERATORS, TENSOR_TYPE_DTYPES, TENSOR_TYPE_NAMES


class ModelError(ValueError):
    """A .tflite file (or a ModelFile about to be written) is malformed; the message names what."""


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
    inspect.signature, a cost every import of the format layer (and so every start of the runtime) pays."""

    def same_as(self, other: object) -> bool:
        """Whether `other` has the same value, numpy array fields compared by value."""
        return _same(self, other)

    def __repr__(self) -> str:  # dataclass's own, written once here: it would exec a __repr__ per class
        fields = self.__dataclass_fields__.values()
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields if f.repr)
        return f"{type(self).__qualname__}({inner})"


@dataclass(eq=False, repr=False)
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


@dataclass(eq=False, repr=False)
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

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of this tensor's elements (ModelError for types numpy has no twin of)."""
        if self.type not in TENSOR_TYPE_DTYPES:
            raise ModelError(f"tensor {self.name!r}: type {tensor_type_name(self.type)} has no numpy dtype")
        return np.dtype(TENSOR_TYPE_DTYPES[self.type])


@dataclass(eq=False, repr=False)
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


@dataclass(eq=False, repr=False)
class SubGraph(_Record):
    """A subgraph: its `tensors`, `operators` in execution order, and the tensor indices of its `inputs` and
    `outputs`. Fields as in TFLite's schema.fbs table of that name."""
    tensors: list[Tensor] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)
    operators: list[Operator] = field(default_factory=list)
    name: str | None = None


@dataclass(eq=False, repr=False)
class Buffer(_Record):
    """Constant data. `data` is always filled on load, also for the offset/size form of large files,
    so where the bytes were stored (`offset`, `size`) is not part of a model's value."""

    data: np.ndarray | None = None
    offset: int = field(default=0, compare=False)
    size: int = field(default=0, compare=False)


@dataclass(eq=False, repr=False)
class OperatorCode(_Record):
    """Which op an operator runs: a builtin code (`code` reconciles the old and new fields) or a
    `custom_code` name, and the op's `version`. Fields as in TFLite's schema.fbs table of that name."""
    deprecated_builtin_code: int = 0
    custom_code: str | None = None
    version: int = 1
    builtin_code: int = 0

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


@dataclass(eq=False, repr=False)
class Metadata(_Record):
    """A named metadata entry pointing at a buffer (e.g. "min_runtime_version"). Fields as in TFLite's
    schema.fbs table of that name."""
    name: str | None = None
    buffer: int = 0


@dataclass(eq=False, repr=False)
class TensorMap(_Record):
    """A signature's name for one tensor (`tensor_index` of the signature's subgraph). Fields as in TFLite's
    schema.fbs table of that name."""
    name: str | None = None
    tensor_index: int = 0


@dataclass(eq=False, repr=False)
class SignatureDef(_Record):
    """A signature: its `signature_key`, the `subgraph_index` it runs, and its named `inputs` and `outputs`
    (TensorMaps). Fields as in TFLite's schema.fbs table of that name."""
    inputs: list[TensorMap] = field(default_factory=list)
    outputs: list[TensorMap] = field(default_factory=list)
    signature_key: str | None = None
    subgraph_index: int = 0


@dataclass(eq=False, repr=False)
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


def builtin_name(code: int) -> str:
    """The builtin operator's name for a code (3 -> "CONV_2D"); `BUILTIN_<code>` for one the schema lacks."""
    if 0 <= code < len(BUILTIN_OPERATORS) and BUILTIN_OPERATORS[code]:
        return BUILTIN_OPERATORS[code]
    return f"BUILTIN_{code}"


def tensor_type_name(type_code: int) -> str:
    """The tensor type's name for a code (9 -> "INT8"); `TYPE_<code>` for a code the schema lacks."""
    return TENSOR_TYPE_NAMES.get(type_code, f"TYPE_{type_code}")
