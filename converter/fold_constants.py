"""Folding ops of a .tflite whose inputs are all constants into constants, computed as the runtime computes
them. What it is for: a fine-tuned int8 model's export (Interpreter.export_model). Its `infer` quantizes each
trained weight from its float variable by ops (DIV, ROUND, ADD, MAXIMUM, MINIMUM, CAST: frozen_copy's
_quantized_read); once the variables are baked in as constants those ops only re-quantize the same numbers at
every run. Folded, the file holds the trained weights as int8 (int32 biases) with the original's scales,
and its ops are the original's.

Only what is computed exactly the same here as by librillet's and LiteRT's kernels folds: float32 arithmetic
is IEEE either way (DIV, ADD, SUB, MUL, MAXIMUM, MINIMUM with no fused activation), ROUND is round half to
even (nearbyintf; TFLite's RoundToNearest), CAST from float truncates (a C cast) and folds only where every
value is finite and in the target's range (elsewhere C leaves it undefined), CAST between integer types only
where every value fits. Anything else stays an op."""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from .format import Buffer, ModelFile
from .format.prune import drop_unused_buffers, drop_unused_tensors

_BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide,
    "MAXIMUM": np.maximum, "MINIMUM": np.minimum,
}
_CAST_TARGETS = {np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.int32)}


def _folded(kind: str, op, values: list[np.ndarray], out_dtype: np.dtype) -> np.ndarray | None:
    """The op's output computed here, or None where it cannot be computed exactly as the kernels do."""
    if kind == "CAST" and len(values) == 1 and out_dtype in _CAST_TARGETS and values[0].dtype in _CAST_TARGETS:
        info, v = np.iinfo(out_dtype), values[0]  # between integers: exact where every value fits
        return v.astype(out_dtype) if not v.size or info.min <= v.min() and v.max() <= info.max else None
    if any(v.dtype != np.float32 for v in values):
        return None
    if kind in _BINARY:
        if out_dtype != np.float32 or len(values) != 2:
            return None
        if getattr(op.builtin_options, "fused_activation_function", 0):
            return None
        if kind == "DIV" and not np.all(values[1]):  # the kernels give 0 for x / 0, numpy inf or nan
            return None
        with np.errstate(all="ignore"):
            return _BINARY[kind](values[0], values[1]).astype(np.float32)
    if kind == "ROUND" and len(values) == 1 and out_dtype == np.float32:
        return np.rint(values[0])  # half to even, as nearbyintf in the default rounding mode
    if kind == "CAST" and len(values) == 1 and out_dtype in _CAST_TARGETS:
        info = np.iinfo(out_dtype)
        v = values[0]
        if not np.all(np.isfinite(v)) or v.size and (v.min() <= info.min - 1 or v.max() >= info.max + 1):
            return None
        return np.trunc(v).astype(out_dtype)
    return None


def fold_constant_ops(m: ModelFile) -> ModelFile:
    """A copy of `m` with every op folded that can be (in order, so chains fold through), its outputs now
    constants; tensors and buffers nothing uses any more are dropped. An op whose output is a subgraph's or
    a signature's output stays (a runtime's output is a computed tensor)."""
    m = dataclasses.replace(m, buffers=list(m.buffers), subgraphs=list(m.subgraphs))
    named = {(sd.subgraph_index, tm.tensor_index) for sd in m.signature_defs or [] for tm in sd.outputs or []}
    folded_any = False
    for k, sg in enumerate(m.subgraphs):
        tensors, kept = list(sg.tensors), []
        m.subgraphs[k] = sg = dataclasses.replace(sg, tensors=tensors)
        for op in sg.operators:
            kind = m.op_name(op)
            inputs = [i for i in op.inputs or [] if i >= 0]
            outputs = op.outputs or []
            value = None
            if (kind in _BINARY or kind in ("ROUND", "CAST")) and inputs and len(outputs) == 1 \
                    and outputs[0] not in sg.outputs and (k, outputs[0]) not in named \
                    and not tensors[outputs[0]].is_variable:
                values = [m.tensor_data(k, i) for i in inputs]
                if all(v is not None and not tensors[i].is_variable for v, i in zip(values, inputs)):
                    out = tensors[outputs[0]]
                    value = _folded(kind, op, values, out.dtype)
                    if value is not None and list(value.shape) != list(out.shape or []):
                        value = None
            if value is None:
                kept.append(op)
                continue
            m.buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8)))
            tensors[outputs[0]] = dataclasses.replace(tensors[outputs[0]], buffer=len(m.buffers) - 1)
            folded_any = True
        sg.operators = kept
    if not folded_any:
        return m
    m = drop_unused_buffers(drop_unused_tensors(m))
    used = {op.opcode_index for sg in m.subgraphs for op in sg.operators}
    if len(used) == len(m.operator_codes):
        return m
    # the folded ops' codes go too: the file lists the original's ops only
    rename = {old: new for new, old in enumerate(sorted(used))}
    return dataclasses.replace(
        m, operator_codes=[m.operator_codes[c] for c in sorted(used)],
        subgraphs=[dataclasses.replace(sg, operators=[dataclasses.replace(op, opcode_index=rename[op.opcode_index])
                                                      for op in sg.operators]) for sg in m.subgraphs])
