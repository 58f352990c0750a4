"""Checked reads of many flatbuffer tables at once, as numpy columns.

A runtime's cold start needs a few fields of every tensor and operator of one subgraph. Decoding each
table into an object (`codec.Reader`) costs tens of microseconds apiece; here a field of all the tables
is read with a few numpy gathers, and the vtables of tables of several types are parsed together. The
checks are `codec.Reader`'s: every table, vtable, field, vector and union code is tested against the
file (a gather past the end is an IndexError) and its table, and vectors spend the same budget against
overlapping tables. A failed check raises `Malformed`, which carries no explanation: the caller names
the problem by decoding the file with the Reader (`load`), whose messages are the format layer's.
"""

import numpy as np

from .codec import NUM_SLOTS, SLOTS
from .schema import SCALARS, UNIONS

# Little-endian numpy twins of the schema's scalars (bool is read as a byte, true when not zero).
SCALAR_DTYPES = {
    "bool": "u1", "byte": "i1", "ubyte": "u1", "short": "<i2", "ushort": "<u2", "int": "<i4", "uint": "<u4",
    "long": "<i8", "ulong": "<u8", "float": "<f4", "double": "<f8",
}


class Malformed(Exception):
    """A check failed; `where` says roughly where, `load` says exactly what."""

    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class FileBytes:
    """One flatbuffer's bytes with typed reads at any byte position, each checked against its length."""

    def __init__(self, data: "bytes | bytearray | memoryview") -> None:
        self.u8 = np.frombuffer(data, dtype=np.uint8)
        self.size = int(self.u8.size)
        self.budget = 16 * self.size + 1_000_000  # as codec.Reader's
        self._typed: dict[str, np.ndarray] = {}

    def typed(self, ftype: str) -> "np.ndarray":
        """Element i is the `ftype` value whose first byte is byte i (overlapping, unaligned reads): an
        index past the last whole value is an IndexError, so a gather checks its own bounds."""
        view = self._typed.get(ftype)
        if view is None:
            dtype = np.dtype(SCALAR_DTYPES[ftype])
            count = self.size - dtype.itemsize + 1
            view = np.ndarray((count,), dtype, self.u8, 0, (1,)) if count > 0 else np.zeros(0, dtype)
            self._typed[ftype] = view
        return view

    def take(self, ftype: str, at: "np.ndarray", where: str) -> "np.ndarray":
        """The `ftype` values at positions `at` (never negative), or Malformed past the end."""
        try:
            return self.typed(ftype)[at]
        except IndexError:
            raise Malformed(where) from None

    def spend(self, count: int, where: str) -> None:
        self.budget -= count
        if self.budget < 0:
            raise Malformed(where)


class Vectors:
    """One vector field of many tables: row i's elements are `count[i]` values from byte `start[i]`."""

    def __init__(self, elem: str, start: "np.ndarray", count: "np.ndarray") -> None:
        self.elem, self.start, self.count = elem, start, count


def gather(fb: "FileBytes", vectors: "list[Vectors]") -> "list[tuple[np.ndarray, np.ndarray]]":
    """The elements of vectors of one element type (already checked), in one gather: per `Vectors`,
    (values, offsets) with row i's values at values[offsets[i]:offsets[i + 1]]."""
    elem = vectors[0].elem
    width = SCALARS[elem][1]
    start = np.concatenate([v.start for v in vectors]) if len(vectors) > 1 else vectors[0].start
    count = np.concatenate([v.count for v in vectors]) if len(vectors) > 1 else vectors[0].count
    offsets = np.zeros(count.size + 1, dtype=np.int64)
    np.cumsum(count, out=offsets[1:])
    total = int(offsets[-1])
    index = np.repeat(start - offsets[:-1] * width, count)
    index += np.arange(total, dtype=np.int64) * width
    values = fb.typed(elem)[index]
    out, row = [], 0
    for v in vectors:
        n = v.count.size
        base = offsets[row]
        out.append((values[base : offsets[row + n]], offsets[row : row + n + 1] - base))
        row += n
    return out


class Tables:
    """Tables of one schema type: their positions and each field's offset (0: absent) per slot."""

    def __init__(self, fb: "FileBytes", table: str, pos: "np.ndarray", offsets: "np.ndarray", where: str) -> None:
        self.fb, self.table, self.pos, self.offsets, self.where = fb, table, pos, offsets, where
        self.slot_of = _layout(table).slot_of

    def __len__(self) -> int:
        return int(self.pos.size)

    def has(self, name: str) -> "np.ndarray":
        return self.offsets[:, self.slot_of[name][0]] != 0

    def scalar(self, name: str) -> "np.ndarray":
        """The field's values, its default where a table leaves it out."""
        slot, ftype, default = self.slot_of[name]
        offset = self.offsets[:, slot]
        if not np.count_nonzero(offset):
            values = np.full(len(self), default, dtype=SCALAR_DTYPES[ftype])
        else:
            values = self.fb.take(ftype, self.pos + offset, f"{self.where}.{name}")
            if np.count_nonzero(offset) != offset.size:
                values = np.where(offset != 0, values, values.dtype.type(default))
        return values != 0 if ftype == "bool" else values

    def ref(self, name: str) -> "tuple[np.ndarray, np.ndarray]":
        """(rows that have the field, where its string, vector or table lies); a table there is checked
        by parsing it, a vector by `vector`."""
        offset = self.offsets[:, self.slot_of[name][0]]
        if np.count_nonzero(offset) == offset.size:
            rows, at = np.arange(len(self)), self.pos + offset
        else:
            rows = np.flatnonzero(offset)
            at = self.pos[rows] + offset[rows]
        return rows, at + self.fb.take("uint", at, f"{self.where}.{name}")

    def vector(self, name: str) -> "Vectors":
        """A vector field (of scalars, or of tables: uoffsets) of every table; absent ones are empty."""
        slot, ftype, _ = self.slot_of[name]
        elem = ftype[1:-1] if ftype[1:-1] in SCALARS else "uint"
        if not np.count_nonzero(self.offsets[:, slot]):
            empty = np.zeros(len(self), dtype=np.int64)
            return Vectors(elem, empty, empty)
        where = f"{self.where}.{name}"
        rows, target = self.ref(name)
        count = self.fb.take("uint", target, where).astype(np.int64)
        if count.size and int(np.maximum.reduce(target + 4 + count * SCALARS[elem][1])) > self.fb.size:
            raise Malformed(where)
        total = int(np.add.reduce(count))
        self.fb.spend(total // 64 if elem == "ubyte" else total, where)
        if rows.size == len(self):
            return Vectors(elem, target + 4, count)
        start, counts = np.zeros(len(self), dtype=np.int64), np.zeros(len(self), dtype=np.int64)
        start[rows], counts[rows] = target + 4, count
        return Vectors(elem, start, counts)

    def tables(self, name: str) -> "tuple[np.ndarray, np.ndarray]":
        """A [Table] field: (offsets, positions of the elements' tables, row i's at offsets[i]:...)."""
        v = self.vector(name)
        (uoffsets, offsets), = gather(self.fb, [v])
        slots = np.repeat(v.start - offsets[:-1] * 4, v.count) + np.arange(int(offsets[-1]), dtype=np.int64) * 4
        return offsets, slots + uoffsets

    def union(self, name: str) -> "tuple[np.ndarray, np.ndarray]":
        """A union field: (member type code per table, 0 when absent; position of the member table)."""
        slot, ftype, _ = self.slot_of[name]
        union = ftype[len("union:"):]
        where = f"{self.where}.{name}"
        codes = np.zeros(len(self), dtype=np.int64)
        positions = np.zeros(len(self), dtype=np.int64)
        type_offset = self.offsets[:, slot - 1]
        if not np.count_nonzero(type_offset):
            return codes, positions
        value_offset = self.offsets[:, slot]
        n = len(self)
        if np.count_nonzero(type_offset) == n and np.count_nonzero(value_offset) == n:  # the usual case
            codes = self.fb.take("ubyte", self.pos + type_offset, where).astype(np.int64)
            if np.count_nonzero(codes) == n:
                if np.count_nonzero(_KNOWN[union][codes]) != n:
                    raise Malformed(where)
                at = self.pos + value_offset
                return codes, at + self.fb.take("uint", at, where)
        else:
            codes = np.where(type_offset != 0, self.fb.take("ubyte", self.pos + type_offset, where), 0)
        rows = np.flatnonzero((value_offset != 0) & (codes != 0))
        if np.count_nonzero(_KNOWN[union][codes[rows]]) != rows.size:
            raise Malformed(where)
        at = self.pos[rows] + value_offset[rows]
        positions[rows] = at + self.fb.take("uint", at, where)
        present = np.zeros(len(self), dtype=bool)
        present[rows] = True
        return np.where(present, codes, 0), positions


def parse(fb: "FileBytes", groups: "list[tuple[str, np.ndarray, str]]") -> "list[Tables]":
    """Tables of several types (table name, positions, where) with their vtables parsed together."""
    pos = np.concatenate([p for _, p, _ in groups]) if len(groups) > 1 else groups[0][1]
    pos = pos.astype(np.int64, copy=False)
    slots = max(NUM_SLOTS[t] for t, _, _ in groups)
    where = groups[0][2] if len(groups) == 1 else "tables"
    n = pos.size
    if n:
        vtable = pos - fb.take("int", pos, where)
        if int(np.minimum.reduce(vtable)) < 0:
            raise Malformed(where)
        head = fb.take("uint", vtable, where).astype(np.int64)
        vt_size, obj_size = head & 0xFFFF, head >> 16
        entry = 4 + 2 * np.arange(slots, dtype=np.int64)
        outside = entry >= vt_size[:, None]
        offsets = fb.typed("ushort")[np.minimum(vtable[:, None] + entry, fb.size - 2)].astype(np.int64)
        offsets[outside] = 0
        bad = (vt_size < 4) | ((vt_size & 1) != 0) | (vtable + vt_size > fb.size) | (pos + obj_size > fb.size)
        if np.count_nonzero(bad):
            raise Malformed(where)
    else:
        offsets, obj_size = np.zeros((0, slots), dtype=np.int64), np.zeros(0, dtype=np.int64)
    # As Reader: every named field (not a union's type byte, not a deprecated slot) lies in its table.
    named = np.repeat(np.array([_layout(t).named_mask(slots) for t, _, _ in groups]), [p.size for _, p, _ in groups],
                      axis=0) if len(groups) > 1 else _layout(groups[0][0]).named_mask(slots)
    if np.count_nonzero((offsets >= obj_size[:, None]) & (offsets != 0) & named):
        raise Malformed(where)
    out, row = [], 0
    for table, p, what in groups:
        k = p.size
        out.append(Tables(fb, table, pos[row : row + k], offsets[row : row + k], what))
        row += k
    return out


class _Layout:
    """Where each named field of a table sits in its vtable (codec.SLOTS)."""

    def __init__(self, table: str) -> None:
        fields = [(slot, name, ftype, default) for slot, name, ftype, default in SLOTS[table] if name is not None]
        self.named_slots = np.array([slot for slot, *_ in fields], dtype=np.int64)
        self.slot_of = {name: (slot, ftype, default) for slot, name, ftype, default in fields}
        self._masks: dict[int, np.ndarray] = {}

    def named_mask(self, slots: int) -> "np.ndarray":
        """Which of the first `slots` vtable slots hold a named field."""
        if slots not in self._masks:
            mask = np.zeros(slots, dtype=bool)
            mask[self.named_slots[self.named_slots < slots]] = True
            self._masks[slots] = mask
        return self._masks[slots]


_LAYOUTS: "dict[str, _Layout]" = {}


def _layout(table: str) -> "_Layout":
    layout = _LAYOUTS.get(table)
    if layout is None:
        layout = _LAYOUTS[table] = _Layout(table)
    return layout


# Per union, per type byte: whether the code names a member (256 entries: a byte indexes it directly). Made
# from bytes, one per member and zeros after them: np.array of a list of 256 bools cost every start ~0.2M
# instructions per union (x86), a generator over all 256 codes ~0.1M.
_KNOWN = {name: np.frombuffer(bytes(member is not None for member in m).ljust(256, b"\0"), dtype=bool)
          for name, m in UNIONS.items()}
