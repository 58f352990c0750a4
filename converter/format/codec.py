"""Schema-driven flatbuffer decoding and encoding of the tables in `schema.TABLES`.

Decoding is written here rather than with flatc's generated Python because that code trusts its input:
a hostile offset becomes an IndexError deep inside it, or a vector length in the billions a hang. This
reader bounds-checks every offset, length and vtable against the file and raises ModelError naming the
table and field. Encoding uses the `flatbuffers` package's Builder.
"""

import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from .schema import FILE_IDENTIFIER, SCALARS, TABLES, UNIONS, union_of



class ModelError(ValueError):
    """A .tflite file (or a ModelFile about to be written) is malformed; the message names what."""


# (RECORD_CLASSES, Options): the tables that have a dataclass of their own (model.py), by table name; every
# other table decodes to an `Options`. Imported on first use (the Reader's first record, or the module
# attribute RECORD_CLASSES): a runtime's start reads its tables as columns and builds no record, and importing
# model.py (with `dataclasses`) cost that start ~8M instructions (x86).
_RECORDS: "tuple[dict[str, type], type] | None" = None


def _records() -> "tuple[dict[str, type], type]":
    global _RECORDS
    if _RECORDS is None:
        from . import model as m

        _RECORDS = ({"Model": m.ModelFile, "OperatorCode": m.OperatorCode, "SubGraph": m.SubGraph,
                     "Tensor": m.Tensor, "Operator": m.Operator, "Buffer": m.Buffer, "Metadata": m.Metadata,
                     "TensorMap": m.TensorMap, "SignatureDef": m.SignatureDef,
                     "QuantizationParameters": m.QuantizationParameters}, m.Options)
    return _RECORDS


def __getattr__(name: str) -> Any:
    if name == "RECORD_CLASSES":
        return _records()[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_header(data: "bytes | bytearray | memoryview") -> None:
    """ModelError unless `data` can be a TFLite flatbuffer: long enough, with TFLite's file identifier."""
    if len(data) < 8:
        raise ModelError(f"not a TFLite model: {len(data)} bytes is too short for a flatbuffer")
    identifier = bytes(data[4:8])
    if identifier != FILE_IDENTIFIER:
        raise ModelError(f"not a TFLite model: file identifier is {identifier!r}, expected {FILE_IDENTIFIER!r}")


def check_index(index: int, count: int, what: str) -> None:
    if not 0 <= index < count:
        raise ModelError(f"{what} index {index} is out of range (there are {count})")


# Buffers and custom data are read in place by kernels that use vector loads: keep them 16-aligned, as
# the schema's force_align asks.
BYTE_VECTOR_ALIGNMENT = 16


def _slots(table: str) -> "list[tuple[int, str | None, str, Any]]":
    """(vtable slot, name, type, default) per field; a union takes two slots and reports the second."""
    out, slot = [], 0
    for name, ftype, default in TABLES[table]:
        if union_of(ftype):
            slot += 1  # the `<name>_type` byte sits in the slot before the value
        out.append((slot, name, ftype, default))
        slot += 1
    return out


class _PerTable(dict):
    """A table name -> `build(name)`, built on first use and kept: a start reads a dozen of the schema's
    ~230 tables, and building all of them at import cost it ~2M instructions (x86). Only the schema's
    tables: another name is a KeyError, as in a full dict."""

    def __init__(self, build: "Callable[[str], Any]") -> None:
        super().__init__()
        self._build = build

    def __missing__(self, table: str) -> Any:
        if table not in TABLES:
            raise KeyError(table)
        value = self[table] = self._build(table)
        return value


SLOTS: "dict[str, list[tuple[int, str | None, str, Any]]]" = _PerTable(_slots)
NUM_SLOTS: "dict[str, int]" = _PerTable(lambda table: SLOTS[table][-1][0] + 1 if SLOTS[table] else 0)
# Per table, its named fields: (slot, name, type, default, whether a union).
_NAMED_SLOTS: "dict[str, list[tuple[int, str, str, Any, bool]]]" = _PerTable(
    lambda table: [(slot, name, ftype, default, union_of(ftype) is not None)
                   for slot, name, ftype, default in SLOTS[table] if name is not None])


# ---------------------------------------------------------------------------------------------- reading

# Per scalar type, its little-endian struct.
_UNPACK = {name: struct.Struct("<" + fmt) for name, (fmt, _) in SCALARS.items()}


class Reader:
    """Decodes one flatbuffer held in `data`, checking every access against its length."""

    def __init__(self, data: "bytes | bytearray | memoryview") -> None:
        self.data = data
        self.size = len(data)
        self.bytes = np.frombuffer(data, dtype=np.uint8)
        # A hostile file can point many table references at one large vector; decoding it once per
        # reference could take gigabytes. Honest files decode to far fewer elements than their bytes.
        self.budget = 16 * self.size + 1_000_000

    def _check(self, pos: int, length: int, what: str) -> None:
        if pos < 0 or length < 0 or pos + length > self.size:
            raise ModelError(
                f"{what}: bytes {pos}..{pos + length} lie outside the file ({self.size} bytes); "
                "the file is truncated or corrupt"
            )

    def _spend(self, count: int, what: str) -> None:
        self.budget -= count
        if self.budget < 0:
            raise ModelError(f"{what}: the file's tables reference more data than it holds (overlapping tables)")

    def scalar(self, pos: int, ftype: str, what: str) -> Any:
        unpack = _UNPACK[ftype]  # the hot read of every decode: one precompiled struct, the check inline
        if pos < 0 or pos + unpack.size > self.size:
            self._check(pos, unpack.size, what)
        return unpack.unpack_from(self.data, pos)[0]

    def _deref(self, pos: int, what: str) -> int:
        target = pos + self.scalar(pos, "uint", what)
        self._check(target, 4, what)
        return target

    def root(self, table: str) -> Any:
        return self.table(self._deref(0, f"root {table}"), table, table)

    def table(self, pos: int, table: str, what: str) -> Any:
        fields: dict[str, Any] = {}
        for name, ftype, default, offset, type_offset in self.field_offsets(pos, table, what):
            where = f"{what}.{name}"
            union = union_of(ftype)
            if union:
                code = self.scalar(pos + type_offset, "ubyte", where) if type_offset else 0
                fields[name] = self._union(pos + offset, union, code, where) if offset and code else None
            elif not offset:
                fields[name] = default
            else:
                fields[name] = self.value(pos + offset, ftype, where)
        records, options = _records()
        cls = records.get(table)
        return cls(**fields) if cls else options(table, **fields)

    def field_offsets(self, pos: int, table: str, what: str) -> "list[tuple[str, str, Any, int, int]]":
        """(name, type, default, offset, union type byte's offset) of every named field of the table at
        `pos` (0: absent), its vtable and every field's place checked against the file and the table."""
        vtable = pos - self.scalar(pos, "int", f"{what} (table)")
        vt_size = self.scalar(vtable, "ushort", f"{what} (vtable)")
        obj_size = self.scalar(vtable + 2, "ushort", f"{what} (vtable)")
        if vt_size < 4 or vt_size % 2:
            raise ModelError(f"{what}: vtable of size {vt_size} is malformed")
        self._check(vtable, vt_size, f"{what} (vtable)")
        self._check(pos, obj_size, f"{what} (table)")
        # The vtable's entries in one read (at most as many as the table has slots).
        entries = struct.unpack_from(f"<{min((vt_size - 4) // 2, NUM_SLOTS[table])}H", self.data, vtable + 4)
        n = len(entries)
        out = []
        for slot, name, ftype, default, is_union in _NAMED_SLOTS[table]:
            offset = entries[slot] if slot < n else 0
            if offset and offset >= obj_size:
                raise ModelError(f"{what}.{name}: field lies outside its table")
            type_offset = (entries[slot - 1] if slot - 1 < n else 0) if is_union else 0
            out.append((name, ftype, default, offset, type_offset))
        return out

    def vector_bounds(self, pos: int, elem: str, what: str) -> "tuple[int, int]":
        """(first element's position, count) of the vector that the uoffset at `pos` points to, checked,
        its elements spent from the budget as `value` would."""
        start = self._deref(pos, what)
        count = self.scalar(start, "uint", what)
        size = SCALARS[elem][1] if elem in SCALARS else 4
        self._check(start + 4, count * size, what)
        self._spend(count // 64 if elem == "ubyte" else count, what)
        return start + 4, count

    def _union(self, pos: int, union: str, code: int, what: str) -> Any:
        members = UNIONS[union]
        if code >= len(members) or members[code] is None:
            raise ModelError(f"{what}: unknown {union} type {code}")
        return self.table(self._deref(pos, what), members[code], what)

    def value(self, pos: int, ftype: str, what: str) -> Any:
        """The field of type `ftype` stored at `pos` (a scalar, or the string, vector or table it points to)."""
        if ftype in SCALARS:
            return self.scalar(pos, ftype, what)
        if ftype == "string":
            return self._string(self._deref(pos, what), what)
        if ftype.startswith("["):
            return self._vector(self._deref(pos, what), ftype[1:-1], what)
        return self.table(self._deref(pos, what), ftype, what)

    def _string(self, pos: int, what: str) -> str:
        length = self.scalar(pos, "uint", what)
        self._check(pos + 4, length, what)
        self._spend(length // 8, what)
        try:
            return bytes(self.data[pos + 4 : pos + 4 + length]).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ModelError(f"{what}: string is not UTF-8 ({e.reason})") from None

    def _vector(self, pos: int, elem: str, what: str) -> Any:
        count = self.scalar(pos, "uint", what)
        start = pos + 4
        if elem in SCALARS:
            fmt, size = SCALARS[elem]
            self._check(start, count * size, what)
            if elem == "ubyte":  # weights and raw data: a zero-copy view into the file
                self._spend(count // 64, what)
                return self.bytes[start : start + count]
            self._spend(count, what)
            raw = self.bytes[start : start + count * size]
            if elem == "bool":
                return [bool(v) for v in raw]
            return raw.view("<" + fmt).tolist()
        self._check(start, count * 4, what)
        self._spend(count, what)
        items = []
        for i in range(count):
            slot = start + 4 * i
            where = f"{what}[{i}]"
            if elem == "string":
                items.append(self._string(self._deref(slot, where), where))
            else:
                items.append(self.table(self._deref(slot, where), elem, where))
        return items


# ---------------------------------------------------------------------------------------------- writing

# Builder method names per scalar type. The `flatbuffers` package is imported by the first Writer: reading
# (all the runtime does) never needs it, and importing it costs a device's start.
_PREPEND_SLOT_NAMES = {
    "bool": "PrependBoolSlot", "byte": "PrependInt8Slot", "ubyte": "PrependUint8Slot", "short": "PrependInt16Slot",
    "ushort": "PrependUint16Slot", "int": "PrependInt32Slot", "uint": "PrependUint32Slot",
    "long": "PrependInt64Slot", "ulong": "PrependUint64Slot", "float": "PrependFloat32Slot",
    "double": "PrependFloat64Slot",
}
_PREPEND_SLOT: "dict[str, Callable]" = {}


class Writer:
    """Encodes records and Options into a flatbuffers Builder, children before parents."""

    def __init__(self, initial_size: int = 1 << 16) -> None:
        import flatbuffers

        if not _PREPEND_SLOT:
            _PREPEND_SLOT.update({t: getattr(flatbuffers.Builder, m) for t, m in _PREPEND_SLOT_NAMES.items()})
        self.builder = flatbuffers.Builder(initial_size)

    def finish(self, root: Any, table: str, identifier: bytes) -> "bytearray":
        offset = self.table(root, table, table)
        self.builder.Finish(offset, file_identifier=identifier)
        return self.builder.Output()

    def table(self, obj: Any, table: str, what: str) -> int:
        b = self.builder
        children: dict[int, int] = {}  # slot -> offset of a string, vector or table written first
        union_codes: dict[int, int] = {}
        for slot, name, ftype, _ in SLOTS[table]:
            value = getattr(obj, name, None) if name else None
            if value is None or ftype in SCALARS:
                continue
            where = f"{what}.{name}"
            union = union_of(ftype)
            if union:
                code = _union_code(union, value, where)
                union_codes[slot - 1] = code
                children[slot] = self.table(value, value.type_name, where)
            elif ftype == "string":
                children[slot] = b.CreateString(value)
            elif ftype.startswith("["):
                children[slot] = self._vector(value, ftype[1:-1], where)
            else:
                children[slot] = self.table(value, ftype, where)
        b.StartObject(NUM_SLOTS[table])
        for slot, name, ftype, default in SLOTS[table]:
            if slot in children:
                b.PrependUOffsetTRelativeSlot(slot, children[slot], 0)
            elif ftype in SCALARS and name is not None:
                value = getattr(obj, name, default)
                if value is not None:
                    _PREPEND_SLOT[ftype](b, slot, _scalar(value, ftype, f"{what}.{name}"), default)
        for slot, code in union_codes.items():
            b.PrependUint8Slot(slot, code, 0)
        return b.EndObject()

    def _vector(self, values: Any, elem: str, what: str) -> int:
        b = self.builder
        if elem == "ubyte":
            return self.byte_vector(np.ascontiguousarray(values, dtype=np.uint8).reshape(-1))
        if elem in SCALARS:
            fmt, _ = SCALARS[elem]
            try:
                array = np.asarray(values, dtype="<" + fmt if elem != "bool" else np.bool_)
            except (TypeError, ValueError, OverflowError) as e:
                raise ModelError(f"{what}: cannot be written as a vector of {elem}: {e}") from None
            return b.CreateNumpyVector(array.reshape(-1))
        if elem == "string":
            offsets = [b.CreateString(v) for v in values]
        else:
            offsets = [self.table(v, elem, f"{what}[{i}]") for i, v in enumerate(values)]
        b.StartVector(4, len(offsets), 4)
        for off in reversed(offsets):
            b.PrependUOffsetTRelative(off)
        return b.EndVector()

    def byte_vector(self, data: "np.ndarray") -> int:
        """A [ubyte] vector whose first byte is 16-aligned in the finished file."""
        b = self.builder
        b.StartVector(1, data.size, BYTE_VECTOR_ALIGNMENT)
        b.head -= data.size
        b.Bytes[b.head : b.head + data.size] = data.tobytes()
        return b.EndVector()


def _union_code(union: str, value: Any, what: str) -> int:
    name = getattr(value, "type_name", None)
    if name not in UNIONS[union][1:]:
        raise ModelError(f"{what}: {name!r} is not a member of {union}")
    return UNIONS[union].index(name)


def _scalar(value: Any, ftype: str, what: str) -> Any:
    if ftype in ("float", "double"):
        return float(value)
    if ftype == "bool":
        return bool(value)
    try:
        number = int(value)
        struct.pack("<" + SCALARS[ftype][0], number)
    except (TypeError, ValueError, struct.error):
        raise ModelError(f"{what}: {value!r} does not fit the schema's {ftype}") from None
    return number
