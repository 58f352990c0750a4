"""`load` and `save`: .tflite bytes <-> ModelFile, with every cross-reference checked."""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from .codec import BYTE_VECTOR_ALIGNMENT, ModelError, Reader, Writer, check_header, check_index
from .schema import FILE_IDENTIFIER, SCHEMA_VERSION, TENSOR_TYPE_DTYPES

if TYPE_CHECKING:
    from .model import Buffer, ModelFile, Operator

# model.py (and `dataclasses`) are imported by the functions that build or copy records, not here: the
# runtime's start never reaches them (see codec._records).

# Flatbuffers address with 32-bit offsets. Past this, buffers go after the flatbuffer, addressed by
# the 64-bit offset/size fields (schema version 3c), as TensorFlow's converter writes large models.
FLATBUFFER_LIMIT = 2**31 - 1
_SAFETY_MARGIN = 16 * 2**20

# Fields of options tables that name a subgraph: the edges of the subgraph call graph.
SUBGRAPH_REFERENCES = {
    "CallOptions": ("subgraph",),
    "IfOptions": ("then_subgraph_index", "else_subgraph_index"),
    "WhileOptions": ("cond_subgraph_index", "body_subgraph_index"),
    "CallOnceOptions": ("init_subgraph_index",),
    "StablehloReduceOptions": ("body_subgraph_index",),
    "StablehloReduceWindowOptions": ("body_subgraph_index",),
    "StablehloSortOptions": ("comparator_subgraph_index",),
    "StablehloWhileOptions": ("cond_subgraph_index", "body_subgraph_index"),
    "StablehloScatterOptions": ("update_computation_subgraph_index",),
}


def load(source: str | os.PathLike | bytes | bytearray | memoryview | mmap.mmap) -> ModelFile:
    """Read a .tflite file (a path, or its bytes). Constant buffers are zero-copy views of the bytes."""
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as f:
                data: bytes | bytearray | memoryview = f.read()
        except OSError as e:
            raise ModelError(f"cannot read {os.fspath(source)!r}: {e.strerror}") from None
    elif isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        data = source
    else:
        raise TypeError(f"load() takes a path or bytes, not {type(source).__name__}")
    check_header(data)
    reader = Reader(data)
    model = reader.root("Model")
    _resolve_external_data(model, reader)
    validate(model)
    return model


def save(model: ModelFile, *, external_buffers: bool | None = None) -> bytes:
    """Write `model` as .tflite bytes that TFLite (and rillet) load.

    Buffers are written inside the flatbuffer unless `external_buffers` is true, or is None and the
    model would not fit a flatbuffer's 2 GB; then they follow it, addressed by offset and size.
    """
    from .model import Buffer

    validate(model)
    total = sum(b.data.size for b in model.buffers if b.data is not None)
    if external_buffers is None:
        external_buffers = total > FLATBUFFER_LIMIT - _SAFETY_MARGIN
    if not external_buffers:
        buffers = [Buffer(data=b.data) for b in model.buffers]
        return bytes(_encode(model, buffers))

    payloads = [b.data if b.data is not None and b.data.size else None for b in model.buffers]
    # The flatbuffer's length does not depend on the offsets' values (fixed-width fields, all set),
    # so encode once with placeholders to learn where the data will start, then with the real offsets.
    # A constant with no elements keeps its empty inline vector: offset 0 would read as "no data", which makes
    # the tensor a non-constant (a 0-element shape operand, as litert-torch writes, then has no value).
    empty = [Buffer(data=b.data) if b.data is not None and not b.data.size else Buffer() for b in model.buffers]
    placeholder = [Buffer(offset=2, size=p.size) if p is not None else e for p, e in zip(payloads, empty)]
    head = len(_encode(model, placeholder))
    offsets, cursor = [], _align(head)
    for p in payloads:
        offsets.append(cursor if p is not None else 0)
        cursor = _align(cursor + p.size) if p is not None else cursor
    final = [Buffer(offset=o, size=p.size) if p is not None else e for o, p, e in zip(offsets, payloads, empty)]
    flat = _encode(model, final)
    if len(flat) != head:
        raise AssertionError("external-buffer layout changed between passes")
    out = bytearray(cursor)
    out[: len(flat)] = flat
    for o, p in zip(offsets, payloads):
        if p is not None:
            out[o : o + p.size] = p.tobytes()
    return bytes(out)


def _encode(model: ModelFile, buffers: list[Buffer]) -> bytearray:
    import dataclasses

    subgraphs = [
        dataclasses.replace(sg, operators=[_inline_custom_options(op) for op in sg.operators])
        for sg in model.subgraphs
    ]
    flat_model = dataclasses.replace(model, buffers=buffers, subgraphs=subgraphs)
    return Writer().finish(flat_model, "Model", FILE_IDENTIFIER)


def _inline_custom_options(op: Operator) -> Operator:
    if not op.large_custom_options_offset and not op.large_custom_options_size:
        return op
    import dataclasses

    return dataclasses.replace(op, large_custom_options_offset=0, large_custom_options_size=0)


def _align(n: int) -> int:
    return (n + BYTE_VECTOR_ALIGNMENT - 1) // BYTE_VECTOR_ALIGNMENT * BYTE_VECTOR_ALIGNMENT


def _external_view(reader: Reader, offset: int, size: int, what: str) -> np.ndarray:
    if offset + size > reader.size:
        raise ModelError(
            f"{what}: data at bytes {offset}..{offset + size} reaches past the end of the file "
            f"({reader.size} bytes)"
        )
    return reader.bytes[offset : offset + size]


def _resolve_external_data(model: ModelFile, reader: Reader) -> None:
    # TFLite treats offset 0 and 1 as "not external" (1 is the converter's placeholder).
    for i, buf in enumerate(model.buffers or []):
        if buf.offset > 1:
            buf.data = _external_view(reader, buf.offset, buf.size, f"buffer {i}")
    for s, sg in enumerate(model.subgraphs or []):
        for j, op in enumerate(sg.operators or []):
            if op.large_custom_options_offset > 1:
                op.custom_options = _external_view(
                    reader, op.large_custom_options_offset, op.large_custom_options_size,
                    f"subgraph {s} operator {j} custom options",
                )


# --------------------------------------------------------------------------------------------- checking


def validate(model: ModelFile) -> None:
    """Raise ModelError, naming the first problem, if any index in `model` points nowhere."""
    if model.version != SCHEMA_VERSION:
        raise ModelError(f"schema version {model.version} is not supported (TFLite files are version 3)")
    for name in ("operator_codes", "subgraphs", "buffers"):
        if getattr(model, name) is None:
            setattr(model, name, [])
    if not model.subgraphs:
        raise ModelError("the model has no subgraphs")
    n_buffers = len(model.buffers)
    for s, sg in enumerate(model.subgraphs):
        _validate_subgraph(model, s, sg, n_buffers)
    for m in model.metadata or []:
        check_index(m.buffer, n_buffers, f"metadata {m.name!r}: buffer")
    for b in model.metadata_buffer or []:
        check_index(b, n_buffers, "metadata_buffer entry")
    for sig in model.signature_defs or []:
        what = f"signature {sig.signature_key!r}"
        check_index(sig.subgraph_index, len(model.subgraphs), f"{what}: subgraph")
        n_tensors = len(model.subgraphs[sig.subgraph_index].tensors)
        for tm in (sig.inputs or []) + (sig.outputs or []):
            check_index(tm.tensor_index, n_tensors, f"{what}: {tm.name!r} tensor")
    _check_subgraph_cycles(model)


def _validate_subgraph(model: ModelFile, s: int, sg, n_buffers: int) -> None:
    for name in ("tensors", "inputs", "outputs", "operators"):
        if getattr(sg, name) is None:
            setattr(sg, name, [])
    where = f"subgraph {s}"
    n_tensors = len(sg.tensors)
    for t_index, t in enumerate(sg.tensors):
        what = f"{where} tensor {t_index} {t.name!r}"
        check_index(t.buffer, n_buffers, f"{what}: buffer")
        data = model.buffers[t.buffer].data
        if data is not None and data.size and t.sparsity is None and t.type in TENSOR_TYPE_DTYPES and t.type != 5:
            expected = int(np.prod(t.shape or [], dtype=np.int64)) * np.dtype(TENSOR_TYPE_DTYPES[t.type]).itemsize
            if expected != data.size:
                raise ModelError(
                    f"{what}: buffer {t.buffer} holds {data.size} bytes, shape {list(t.shape or [])} needs {expected}"
                )
    for i in sg.inputs:
        check_index(i, n_tensors, f"{where} input")
    for i in sg.outputs:
        check_index(i, n_tensors, f"{where} output")
    for j, op in enumerate(sg.operators):
        what = f"{where} operator {j}"
        check_index(op.opcode_index, len(model.operator_codes), f"{what}: opcode")
        what += f" ({model.op_name(op)})"
        for i in op.inputs or []:
            if i != -1:  # -1 marks an omitted optional input
                check_index(i, n_tensors, f"{what}: input tensor")
        for i in op.outputs or []:
            check_index(i, n_tensors, f"{what}: output tensor")
        for i in op.intermediates or []:
            check_index(i, n_tensors, f"{what}: intermediate tensor")


def subgraph_references(op: Operator) -> Iterator[int]:
    """The subgraphs an operator calls (CALL_ONCE's initializer, IF's branches, WHILE's body, ...)."""
    from .model import Options

    for options in (op.builtin_options, op.builtin_options_2):
        if isinstance(options, Options):
            for field in SUBGRAPH_REFERENCES.get(options.type_name, ()):
                yield getattr(options, field)


def _check_subgraph_cycles(model: ModelFile) -> None:
    n = len(model.subgraphs)
    calls: list[set[int]] = []
    for s, sg in enumerate(model.subgraphs):
        targets = set()
        for j, op in enumerate(sg.operators):
            for target in subgraph_references(op):
                check_index(target, n, f"subgraph {s} operator {j} ({model.op_name(op)}): called subgraph")
                targets.add(target)
        calls.append(targets)
    check_call_cycles(calls)


def check_call_cycles(calls: list[set[int]]) -> None:
    """ModelError naming the first cycle in the subgraph call graph (`calls[s]`: what subgraph s calls)."""
    n = len(calls)
    state = [0] * n  # 0 unvisited, 1 on the current path, 2 done
    for start in range(n):
        if state[start]:
            continue
        path, stack = [start], [iter(sorted(calls[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state[nxt] == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise ModelError("cycle of subgraph references: " + " -> ".join(f"subgraph {c}" for c in cycle))
            elif state[nxt] == 0:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(calls[nxt])))
