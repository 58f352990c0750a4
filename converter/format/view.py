"""`ModelView`: a .tflite file decoded on demand, for a runtime's cold start.

`load` decodes the whole file into objects before anything can use it. A view reads the model's top
table at once; its operator codes and buffers (with subgraph 0's tables) when first asked for, a subgraph
table when that subgraph is, and a subgraph's tensors and operators when they are: as numpy columns
(`columns.Tables`), the fields a plan reads, with `validate`'s cross-references for that subgraph
(`SubGraphView.check`). Everything else (signatures, metadata, names, the schema's objects `Tensor`,
`Operator`, ... one at a time) is decoded when first read by the same checked `codec.Reader` that `load`
uses, so it equals what `load` gives. A failed check, now or later, raises the ModelError that `load`
raises for the file.

The view reads the bytes in place: constants are views into them, so they must outlive the view.
"""

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, overload

import numpy as np

from .codec import ModelError, Reader, check_header, check_index
from .columns import FileBytes, Malformed, Tables, Vectors, gather, parse
from .schema import (
    CUSTOM_CODE,
    SCHEMA_VERSION,
    TABLES,
    TENSOR_TYPE_DTYPES,
    UNIONS,
    builtin_name,
    tensor_type_name,
)

if TYPE_CHECKING:  # the records are built by the Reader, which imports model.py when it first builds one
    from .model import Buffer, Metadata, ModelFile, Operator, OperatorCode, Options, SignatureDef, Tensor

T = TypeVar("T")

# Bytes per element of each TensorType numpy has a twin of (0: none; STRING, 5, is never size-checked),
# indexed by the type byte read as unsigned.
_ITEMSIZE = np.zeros(256, dtype=np.int64)
for _code, _dtype in TENSOR_TYPE_DTYPES.items():
    if _code != 5:
        _ITEMSIZE[_code] = np.dtype(_dtype).itemsize


def explain(data: "bytes | bytearray | memoryview", problem: "Malformed | ModelError") -> "NoReturn":
    """Raise the ModelError that names what is wrong with `data`: `load`'s (which reads it all, so that
    a file says the same whichever reader finds it broken), else `problem`'s."""
    from .io import load

    load(data)
    if isinstance(problem, ModelError):
        raise problem
    raise ModelError(f"{problem.where}: malformed (a check of the on-demand reader failed)")


# Generic through Sequence[T] (a plain alias; LazyList[X] still subscripts, by Sequence's __class_getitem__):
# typing.Generic's class machinery cost a start ~0.2M instructions (x86).
class LazyList(Sequence[T]):
    """A read-only list whose items are decoded on first access and kept."""

    def __init__(self, length: int, decode: "Callable[[int], T]") -> None:
        self._items: list[Any] = [None] * length
        self._decode = decode

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> "T": ...
    @overload
    def __getitem__(self, index: "slice") -> "list[T]": ...
    def __getitem__(self, index: "int | slice") -> "T | list[T]":
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        item = self._items[index]
        if item is None:
            item = self._items[index] = self._decode(range(len(self))[index])
        return item

    def __iter__(self) -> "Iterator[T]":
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return f"LazyList({len(self)} items)"


class Ragged:
    """Vectors of one field of many tables, flat: row i is values[offsets[i]:offsets[i + 1]]."""

    def __init__(self, values: "np.ndarray", offsets: "np.ndarray") -> None:
        self.values, self.offsets = values, offsets

    @property
    def counts(self) -> "np.ndarray":
        return np.diff(self.offsets)

    def row(self, i: int) -> "np.ndarray":
        return self.values[self.offsets[i] : self.offsets[i + 1]]


class TableVector:
    """The tables of a [Table] vector field: how many, and where each lies, for all of them at once only
    when asked (`array`): a runtime whose plan librillet builds needs the count alone."""

    def __init__(self, fb: "FileBytes", start: int = 0, count: int = 0) -> None:
        self._fb, self._start, self.size = fb, start, count
        self._array: np.ndarray | None = None

    def __getitem__(self, i: int) -> int:
        if not 0 <= i < self.size:
            raise IndexError(i)
        slot = self._start + 4 * i
        return slot + int(self._fb.typed("uint")[slot])

    @property
    def array(self) -> "np.ndarray":
        if self._array is None:
            slots = self._start + 4 * np.arange(self.size, dtype=np.int64)
            self._array = slots + self._fb.typed("uint")[slots]
        return self._array


class TensorColumns:
    """What a plan reads of every tensor of a subgraph (row i: tensor i). `quantized` lists the tensors
    with quantization parameters; `scale`, `zero_point`, `quantized_dimension` have a row for each (the
    first two also as `Vectors` in the file, which a plan can read in place)."""

    shape: "Ragged"
    scale_vectors: "Vectors"
    zero_point_vectors: "Vectors"
    quantized_dimension: "np.ndarray"

    @property
    def scale(self) -> "Ragged":
        return Ragged(*gather(self._fb, [self.scale_vectors])[0])

    @property
    def zero_point(self) -> "Ragged":
        return Ragged(*gather(self._fb, [self.zero_point_vectors])[0])

    def __init__(self, tables: "Tables") -> None:
        self._fb = tables.fb
        self.type = tables.scalar("type")
        self.buffer = tables.scalar("buffer").astype(np.int64)
        self.is_variable = tables.scalar("is_variable")
        self.has_sparsity = tables.has("sparsity")
        self.quantized, self._quantization = tables.ref("quantization")


class OperatorColumns:
    """What a plan and the call graph read of every operator of a subgraph (row j: operator j)."""

    inputs: "Ragged"
    outputs: "Ragged"
    intermediates: "Ragged"

    def __init__(self, tables: "Tables", n_codes: int) -> None:
        self.opcode_index = tables.scalar("opcode_index").astype(np.int64)
        if self.opcode_index.size and int(np.maximum.reduce(self.opcode_index)) >= n_codes:
            raise Malformed(f"{tables.where}.opcode_index")
        self.options_type, self.options_pos = tables.union("builtin_options")
        self.options2_type, self.options2_pos = tables.union("builtin_options_2")
        self.large_custom_offset = tables.scalar("large_custom_options_offset")
        self.large_custom_size = tables.scalar("large_custom_options_size")


class QuantizationFacts:
    """A tensor's `scale`, `zero_point` and `quantized_dimension` (the schema's QuantizationParameters
    fields of those names, as `load` decodes them)."""

    __slots__ = ("scale", "zero_point", "quantized_dimension")

    def __init__(self, scale: "list[float] | None", zero_point: "list[int] | None", quantized_dimension: int) -> None:
        self.scale, self.zero_point, self.quantized_dimension = scale, zero_point, quantized_dimension


class TensorFacts:
    """What a runtime reports of a tensor (LiteRT's details, its numpy type, its name in messages): the
    schema's Tensor fields `name`, `type`, `shape_signature` and `quantization` with `load`'s values, read
    by the checked Reader without building the Tensor record (and importing the records' module) at a start."""

    __slots__ = ("name", "type", "shape_signature", "quantization")

    def __init__(self, name: "str | None", type: int, shape_signature: "list[int] | None",
                 quantization: "QuantizationFacts | None") -> None:
        self.name, self.type, self.shape_signature, self.quantization = name, type, shape_signature, quantization

    @property
    def dtype(self) -> "np.dtype":
        """As Tensor.dtype: the numpy dtype of the elements (ModelError for types numpy has no twin of)."""
        if self.type not in TENSOR_TYPE_DTYPES:
            raise ModelError(f"tensor {self.name!r}: type {tensor_type_name(self.type)} has no numpy dtype")
        return np.dtype(TENSOR_TYPE_DTYPES[self.type])


class SubGraphView:
    """One subgraph of a ModelView. `tensors` and `operators` decode per item, as `load` would;
    `columns()` reads what a plan needs of all of them at once and runs `validate`'s checks."""

    def __init__(self, model: "ModelView", index: int, position: int, fields: "dict[str, int]",
                 tensor_pos: "TableVector", op_pos: "TableVector", inputs: "list[int]", outputs: "list[int]") -> None:
        self.model, self.index = model, index
        self._position, self._fields = position, fields
        self.where = f"Model.subgraphs[{index}]"
        self._tensor_pos, self._op_pos = tensor_pos, op_pos
        self.inputs, self.outputs = inputs, outputs
        self.tensors: LazyList[Tensor] = LazyList(tensor_pos.size, self._decode_tensor)
        self.operators: LazyList[Operator] = LazyList(op_pos.size, self._decode_operator)
        self._columns: tuple[TensorColumns, OperatorColumns] | None = None
        self._parsed: tuple[Tables, Tables] | None = None  # the tensor and operator tables, when parsed
        self._op_columns: OperatorColumns | None = None
        self._options: dict[str, tuple[np.ndarray, Tables]] | None = None

    @property
    def name(self) -> "str | None":
        """The subgraph's name, or None."""
        offset = self._fields["name"]
        return self.model.reader.value(self._position + offset, "string", f"{self.where}.name") if offset else None

    def _decode_tensor(self, i: int) -> "Tensor":
        return self.model.reader.table(int(self._tensor_pos[i]), "Tensor", f"{self.where}.tensors[{i}]")

    def tensor_facts(self, i: int) -> "TensorFacts":
        """Tensor i's TensorFacts (IndexError outside the subgraph); its fields read as `tensors[i]` reads them."""
        reader, where = self.model.reader, f"{self.where}.tensors[{i}]"
        pos = int(self._tensor_pos[i])
        t = _fields(reader, pos, "Tensor", where, ("name", "type", "shape_signature", "quantization"))
        q = t["quantization"]
        if q is not None:
            q = QuantizationFacts(**_fields(reader, q, "QuantizationParameters", f"{where}.quantization",
                                            ("scale", "zero_point", "quantized_dimension")))
        return TensorFacts(t["name"], t["type"], t["shape_signature"], q)

    def _decode_operator(self, j: int) -> "Operator":
        op = self.model.reader.table(int(self._op_pos[j]), "Operator", f"{self.where}.operators[{j}]")
        if op.large_custom_options_offset > 1:  # as load: custom options kept after the flatbuffer
            op.custom_options = self.model.external_bytes(
                op.large_custom_options_offset, op.large_custom_options_size,
                f"subgraph {self.index} operator {j} custom options")
        return op

    def columns(self) -> "tuple[TensorColumns, OperatorColumns]":
        """The tensors' and operators' columns, checked as `validate` checks this subgraph."""
        if self._columns is None:
            try:
                self._columns = self._read_columns()
            except (Malformed, ModelError) as e:
                explain(self.model.data, e)
        return self._columns

    def operator_columns(self) -> "OperatorColumns":
        """The operators' opcodes and options only (enough to list ops and follow subgraph calls)."""
        if self._columns is not None:
            return self._columns[1]
        if self._op_columns is None:
            try:
                self.model.opcode_codes  # noqa: B018 - reads the model's tables, subgraph 0's with them
                (ops,) = self._parsed[1:] if self._parsed else parse(
                    self.model.fb, [("Operator", self._op_pos.array, f"{self.where}.operators")])
                self._op_columns = OperatorColumns(ops, self.model.opcode_codes.size)
            except (Malformed, ModelError) as e:
                explain(self.model.data, e)
        return self._op_columns

    def _read_columns(self) -> "tuple[TensorColumns, OperatorColumns]":
        model, fb = self.model, self.model.fb
        model.opcode_codes  # noqa: B018 - reads the model's tables, subgraph 0's with them
        tensor_tables, op_tables = self._parsed or parse(fb, [
            ("Tensor", self._tensor_pos.array, f"{self.where}.tensors"),
            ("Operator", self._op_pos.array, f"{self.where}.operators")])
        tensors = TensorColumns(tensor_tables)
        ops = OperatorColumns(op_tables, model.opcode_codes.size)
        ints = gather(fb, [tensor_tables.vector("shape"), op_tables.vector("inputs"),
                           op_tables.vector("outputs"), op_tables.vector("intermediates")])
        tensors.shape, ops.inputs, ops.outputs, ops.intermediates = (Ragged(v, o) for v, o in ints)
        op_tables.vector("custom_options")  # in the file (its bytes are read when the operator is)

        # Quantization parameters and options tables: one parse for all their types.
        groups = [("QuantizationParameters", tensors._quantization, f"{self.where}.tensors.quantization")]
        members = UNIONS["BuiltinOptions"]
        codes = (np.flatnonzero(np.bincount(ops.options_type, minlength=1)[1:]) + 1).tolist()
        for code in codes:
            groups.append((members[code], ops.options_pos[ops.options_type == code],
                           f"{self.where}.operators.builtin_options"))
        quant, *option_tables = parse(fb, groups)
        tensors.scale_vectors, tensors.zero_point_vectors = quant.vector("scale"), quant.vector("zero_point")
        tensors.quantized_dimension = quant.scalar("quantized_dimension")
        self._option_tables = [(members[c], c, t) for c, t in zip(codes, option_tables)]
        self._check(tensors, ops)
        return tensors, ops

    def _check(self, t: "TensorColumns", ops: "OperatorColumns") -> None:
        """`validate`'s checks of this subgraph: tensor, buffer and opcode indices, buffer sizes."""
        model = self.model
        n_tensors, n_buffers = self._tensor_pos.size, model.buffer_count
        if n_tensors:
            if int(np.maximum.reduce(t.buffer)) >= n_buffers:
                raise Malformed(f"{self.where}.tensors.buffer")
            size = model.buffer_size[t.buffer]
            itemsize = _ITEMSIZE[t.type.astype(np.uint8)]
            sized = model.buffer_present[t.buffer] & (size > 0) & ~t.has_sparsity & (itemsize > 0)
            if np.count_nonzero(sized) and np.count_nonzero(sized & (_products(t.shape) * itemsize != size)):
                raise Malformed(f"{self.where}.tensors: a buffer's size")
        if any(not 0 <= i < n_tensors for i in self.inputs + self.outputs):
            raise Malformed(f"{self.where}: inputs, outputs")
        for ragged, lowest in ((ops.inputs, -1), (ops.outputs, 0), (ops.intermediates, 0)):
            if ragged.values.size and (int(np.minimum.reduce(ragged.values)) < lowest
                                        or int(np.maximum.reduce(ragged.values)) >= n_tensors):
                raise Malformed(f"{self.where}.operators: a tensor index")
        for j in np.flatnonzero(ops.large_custom_offset > 1).tolist():
            if int(ops.large_custom_offset[j]) + int(ops.large_custom_size[j]) > model.fb.size:
                raise Malformed(f"{self.where}.operators[{j}]: custom options")

    def options_tables(self) -> "dict[str, tuple[np.ndarray, Tables]]":
        """Per builtin options type: (the operators that have it, the tables as columns)."""
        _, ops = self.columns()
        if self._options is None:
            self._options = {name: (np.flatnonzero(ops.options_type == code), tables)
                             for name, code, tables in self._option_tables}
        return self._options

    def builtin_options(self) -> "list[Options | None]":
        """Every operator's builtin_options as `load` decodes them."""
        out: list[Options | None] = [None] * self._op_pos.size
        for name, (rows, tables) in self.options_tables().items():
            for j in rows.tolist():
                out[j] = self.model.reader.table(int(tables.pos[np.searchsorted(rows, j)]), name,
                                                 f"{self.where}.operators[{j}].builtin_options")
        return out


def _fields(reader: "Reader", pos: int, table: str, where: str, names: "tuple[str, ...]") -> "dict[str, Any]":
    """The fields `names` of the table at `pos`, as Reader.table decodes them, except that a table-typed field
    is its table's position (None when absent)."""
    out = {}
    for name, ftype, default, offset, _ in reader.field_offsets(pos, table, where):
        if name in names:
            if not offset:
                out[name] = default
            elif ftype in TABLES:
                out[name] = reader._deref(pos + offset, f"{where}.{name}")
            else:
                out[name] = reader.value(pos + offset, ftype, f"{where}.{name}")
    return out


def _products(shape: "Ragged") -> "np.ndarray":
    """The element count of each shape (1 for rank 0), in int64 as `validate` computes it."""
    counts = shape.counts
    out = np.ones(counts.size, dtype=np.int64)
    nonempty = np.flatnonzero(counts)
    if nonempty.size:
        out[nonempty] = np.multiply.reduceat(shape.values.astype(np.int64), shape.offsets[nonempty])
    return out


class ModelView:
    """A .tflite file (bytes, an mmap, a memoryview) decoded on demand; see the module's docstring.

    Reads like a ModelFile (`version`, `operator_codes`, `subgraphs`, `buffers`, `signature_defs`, ...,
    `op_name`, `tensor_data`) but is read-only; `to_model()` gives the whole ModelFile, as `load` does.
    """

    def __init__(self, data: "bytes | bytearray | memoryview") -> None:
        if isinstance(data, memoryview) and (data.format != "B" or data.ndim != 1):
            data = data.cast("B")
        check_header(data)
        self.data = data
        self.fb = FileBytes(data)
        self.reader = Reader(data)
        self._lazy: dict[str, Any] = {}
        try:
            self._read_model()
        except (Malformed, ModelError) as e:
            explain(data, e)

    def _read_model(self) -> None:
        reader = self.reader
        root = reader._deref(0, "root Model")
        self._root = root
        self._fields = {name: (ftype, default, offset) for name, ftype, default, offset, _ in
                        reader.field_offsets(root, "Model", "Model")}
        self.version = self._model_field("version")
        if self.version != SCHEMA_VERSION:
            raise ModelError(f"schema version {self.version} is not supported (TFLite files are version 3)")
        self._subgraph_pos = self._table_positions(root, "subgraphs", "Model.subgraphs")
        if not self._subgraph_pos.size:
            raise ModelError("the model has no subgraphs")
        self.subgraphs: LazyList[SubGraphView] = LazyList(self._subgraph_pos.size, self._read_subgraph)

    def __getattr__(self, name: str) -> Any:
        """The operator codes and buffers are read when one of them is first asked for (librillet reads
        what a plan needs from the bytes itself)."""
        if name not in _TABLE_ATTRIBUTES or "_tables_read" in self.__dict__:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self._tables_read = True
        try:
            self._read_tables()
        except (Malformed, ModelError) as e:
            explain(self.data, e)
        return self.__dict__[name]

    def _read_tables(self) -> None:
        fb, root = self.fb, self._root
        # Subgraph 0 (TFLite's main one, which a plan reads) has its tensors and operators parsed with
        # the model's own tables: one parse, not two.
        main = self.subgraphs[0]
        codes, buffers, main_tensors, main_ops = parse(fb, [
            ("OperatorCode", self._table_positions(root, "operator_codes", "Model.operator_codes").array,
             "Model.operator_codes"),
            ("Buffer", self._table_positions(root, "buffers", "Model.buffers").array, "Model.buffers"),
            ("Tensor", main._tensor_pos.array, f"{main.where}.tensors"),
            ("Operator", main._op_pos.array, f"{main.where}.operators"),
        ])
        main._parsed = (main_tensors, main_ops)

        self.opcode_codes = np.maximum(codes.scalar("deprecated_builtin_code").astype(np.int64),
                                       codes.scalar("builtin_code").astype(np.int64))
        self._code_pos = codes.pos
        self.operator_codes: LazyList[OperatorCode] = LazyList(len(codes), self._decode_code)

        data = buffers.vector("data")
        self.buffer_count = len(buffers)
        self.buffer_present = buffers.has("data")
        self.buffer_start, self.buffer_size = data.start, data.count
        self._buffer_offset, self._buffer_ext_size = buffers.scalar("offset"), buffers.scalar("size")
        external = np.flatnonzero(self._buffer_offset > 1)  # TFLite: 0 and 1 mean "not external"
        for i in external.tolist():
            offset, size = int(self._buffer_offset[i]), int(self._buffer_ext_size[i])
            if offset + size > fb.size:
                raise Malformed(f"Model.buffers[{i}]: external data")
            self.buffer_start[i], self.buffer_size[i], self.buffer_present[i] = offset, size, True
        self.buffers: LazyList[Buffer] = LazyList(len(buffers), self._decode_buffer)

    def _read_subgraph(self, s: int) -> "SubGraphView":
        """A SubGraph table, read by the checked Reader (a model has few): where its tensors and operators
        lie, its inputs and outputs."""
        where = f"Model.subgraphs[{s}]"
        try:
            pos = int(self._subgraph_pos[s])
            fields = {name: offset for name, _, _, offset, _ in self.reader.field_offsets(pos, "SubGraph", where)}
            return SubGraphView(
                self, s, pos, fields,
                self._table_positions(pos, "tensors", f"{where}.tensors", fields),
                self._table_positions(pos, "operators", f"{where}.operators", fields),
                *(self.reader.value(pos + fields[name], "[int]", f"{where}.{name}") if fields[name] else []
                  for name in ("inputs", "outputs")))
        except ModelError as e:
            explain(self.data, e)

    def _table_positions(self, table: int, name: str, where: str,
                         fields: "dict[str, int] | None" = None) -> "TableVector":
        """Where the tables of the [Table] field `name` of the table at `table` lie (the vector checked
        now, each table when parsed)."""
        offset = fields[name] if fields is not None else self._fields[name][2]
        if not offset:
            return TableVector(self.fb)
        return TableVector(self.fb, *self.reader.vector_bounds(table + offset, "table", where))

    # ---- decoding on demand ----

    def _model_field(self, name: str) -> Any:
        if name not in self._lazy:
            ftype, default, offset = self._fields[name]
            self._lazy[name] = self.reader.value(self._root + offset, ftype, f"Model.{name}") if offset else default
        return self._lazy[name]

    def external_bytes(self, offset: int, size: int, what: str) -> "np.ndarray":
        """Bytes kept after the flatbuffer (large files), checked to lie in the file."""
        if offset + size > self.fb.size:
            raise ModelError(f"{what}: data at bytes {offset}..{offset + size} reaches past the end of the file "
                             f"({self.fb.size} bytes)")
        return self.fb.u8[offset : offset + size]

    def _decode_code(self, i: int) -> "OperatorCode":
        return self.reader.table(int(self._code_pos[i]), "OperatorCode", f"Model.operator_codes[{i}]")

    def _decode_buffer(self, i: int) -> "Buffer":
        from .model import Buffer

        return Buffer(data=self.buffer_data(i), offset=int(self._buffer_offset[i]),
                      size=int(self._buffer_ext_size[i]))

    def buffer_data(self, i: int) -> "np.ndarray | None":
        """Buffer i's bytes, in place (None when the buffer has no data field), as `load` gives them."""
        if not self.buffer_present[i]:
            return None
        start = int(self.buffer_start[i])
        return self.fb.u8[start : start + int(self.buffer_size[i])]

    def opcode_name(self, index: int) -> str:
        """What operator code `index` runs: CONV_2D, or a custom op's code (OperatorCode.name)."""
        code = int(self.opcode_codes[index])
        return self.operator_codes[index].name if code == CUSTOM_CODE else builtin_name(code)

    # ---- what ModelFile offers ----

    @property
    def description(self) -> "str | None":
        """The model's description string, or None."""
        return self._model_field("description")

    @property
    def metadata_buffer(self) -> "list[int] | None":
        """The model's deprecated metadata_buffer indices (checked against the buffers), or None."""
        values = self._model_field("metadata_buffer")
        for b in values or []:
            check_index(b, self.buffer_count, "metadata_buffer entry")
        return values

    @property
    def metadata(self) -> "list[Metadata] | None":
        """The model's Metadata entries (their buffers checked), or None."""
        values = self._model_field("metadata")
        for m in values or []:
            check_index(m.buffer, self.buffer_count, f"metadata {m.name!r}: buffer")
        return values

    @property
    def signature_defs(self) -> "list[SignatureDef] | None":
        """The signatures, their subgraph and tensor indices checked as `validate` does."""
        values = self._model_field("signature_defs")
        for sig in values or []:
            what = f"signature {sig.signature_key!r}"
            check_index(sig.subgraph_index, len(self.subgraphs), f"{what}: subgraph")
            n_tensors = len(self.subgraphs[sig.subgraph_index].tensors)
            for tm in (sig.inputs or []) + (sig.outputs or []):
                check_index(tm.tensor_index, n_tensors, f"{what}: {tm.name!r} tensor")
        return values

    def op_name(self, op: "Operator") -> str:
        """The name of the op `op` runs: a builtin's ("CONV_2D") or a custom op's code."""
        return self.opcode_name(op.opcode_index)

    def tensor_data(self, subgraph: int, tensor: int) -> "np.ndarray | None":
        """The constant value of a tensor as a typed, shaped, read-only view; None if it has no data."""
        t = self.subgraphs[subgraph].tensors[tensor]
        raw = self.buffer_data(t.buffer) if t.buffer < self.buffer_count else None
        if raw is None or raw.size == 0:
            return None
        shape = tuple(t.shape or ())
        dtype = t.dtype
        count = int(np.prod(shape, dtype=np.int64))
        if count * dtype.itemsize != raw.size:
            raise ModelError(f"tensor {tensor} {t.name!r}: buffer {t.buffer} holds {raw.size} bytes, "
                             f"shape {list(shape)} of {dtype.name} needs {count * dtype.itemsize}")
        return raw.view(dtype).reshape(shape)

    def to_model(self) -> "ModelFile":
        """The whole model decoded and validated, as `load` gives it."""
        from .io import load

        return load(self.data)

    # ---- whole-model checks ----

    def check_calls(self) -> None:
        """The subgraph call graph (CALL_ONCE, IF, WHILE, ...): every target exists, no cycle. Decodes
        only the options of operators whose options name a subgraph."""
        try:
            self._check_calls()
        except ModelError as e:
            explain(self.data, e)

    def _check_calls(self) -> None:
        from .io import SUBGRAPH_REFERENCES, check_call_cycles  # load's own; a start checks calls in librillet

        # Per union, per type code: whether its options tables name subgraphs.
        calling_codes = {union: np.array([m in SUBGRAPH_REFERENCES for m in members] + [False] * (256 - len(members)))
                         for union, members in UNIONS.items()}
        n = len(self.subgraphs)
        calls: list[set[int]] = []
        for s in range(n):
            sg = self.subgraphs[s]
            ops = sg.operator_columns()
            targets: set[int] = set()
            for union, key, types, positions in (
                    ("BuiltinOptions", "builtin_options", ops.options_type, ops.options_pos),
                    ("BuiltinOptions2", "builtin_options_2", ops.options2_type, ops.options2_pos)):
                calling = calling_codes[union][types]
                if not np.count_nonzero(calling):
                    continue
                for j in np.flatnonzero(calling).tolist():
                    name = UNIONS[union][int(types[j])]
                    options = self.reader.table(int(positions[j]), name, f"{sg.where}.operators[{j}].{key}")
                    for field in SUBGRAPH_REFERENCES[name]:
                        target = getattr(options, field)
                        check_index(target, n, f"subgraph {s} operator {j} "
                                    f"({self.opcode_name(int(ops.opcode_index[j]))}): called subgraph")
                        targets.add(target)
            calls.append(targets)
        check_call_cycles(calls)


# What ModelView._read_tables sets.
_TABLE_ATTRIBUTES = frozenset({"opcode_codes", "_code_pos", "operator_codes", "buffer_count", "buffer_present",
                               "buffer_start", "buffer_size", "_buffer_offset", "_buffer_ext_size", "buffers"})



__all__ = ["LazyList", "ModelView", "OperatorColumns", "QuantizationFacts", "Ragged", "SubGraphView", "TensorColumns",
           "TensorFacts", "Vectors"]
