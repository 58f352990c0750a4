"""int8 quantization of models with several subgraphs: which subgraphs an op calls, folding an IF's constant
operands into its branches, and calibrating the called subgraphs. (rewrite.py's planner gives each value an
IF or WHILE passes across one int8 scale on every side, or keeps it float32.)

Calibration runs the model's subgraph 0 natively, then replays each IF, WHILE and CALL_ONCE it ran with the
same operands, one subgraph at a time through rillet's Interpreter, recording every tensor of each call: a
WHILE body is seen at every iteration (the native run keeps only the last), a branch only when it is taken.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from rillet.converter.format import ModelFile, SubGraph, subgraph_references

from .rewrite import QuantizationError

# A replayed WHILE that runs longer than this is a model calibration cannot serve (the native run finished).
MAX_REPLAYED_ITERATIONS = 1_000_000

Record = Callable[[int, dict[int, np.ndarray]], None]  # (subgraph, its tensor values after one call)


def callees(op: Any) -> list[int]:
    """The subgraphs `op` calls, in its options' order (IF: then, else; WHILE: cond, body; none for an op
    that calls none)."""
    return [int(j) for j in subgraph_references(op)]


def fold_constant_if_operands(model: ModelFile) -> ModelFile:
    """The model with each IF operand that is a constant in its caller made a constant of both branches and
    dropped from the IF. openWakeWord's models pass their weights into the branch this way; a branch's
    FULLY_CONNECTED then reads constant weights, which int8 quantizes (the IF's operands stay float, and
    would otherwise keep a float copy of every weight). Branches another op also calls are left alone."""
    calls: dict[int, int] = {}
    for sg in model.subgraphs:
        for op in sg.operators:
            for j in callees(op):
                calls[j] = calls.get(j, 0) + 1
    subgraphs = [dataclasses.replace(sg, tensors=list(sg.tensors), inputs=list(sg.inputs),
                                     operators=list(sg.operators)) for sg in model.subgraphs]
    for k, sg in enumerate(subgraphs):
        for n, op in enumerate(sg.operators):
            if model.op_name(op) != "IF":
                continue
            branches = callees(op)
            if len(set(branches)) != 2 or any(calls[b] != 1 for b in branches):
                continue
            kept = [slot for slot, i in enumerate(op.inputs[1:])
                    if not _foldable(model, sg, i, [subgraphs[b] for b in branches], slot)]
            if len(kept) == len(op.inputs) - 1:
                continue
            for slot, i in enumerate(op.inputs[1:]):
                if slot not in kept:
                    for b in branches:
                        target = subgraphs[b].inputs[slot]
                        subgraphs[b].tensors[target] = dataclasses.replace(subgraphs[b].tensors[target],
                                                                           buffer=sg.tensors[i].buffer)
            for b in branches:
                subgraphs[b].inputs = [subgraphs[b].inputs[slot] for slot in kept]
            sg.operators[n] = dataclasses.replace(op, inputs=[op.inputs[0]] + [op.inputs[1 + s] for s in kept])
    return dataclasses.replace(model, subgraphs=subgraphs)


def _foldable(model: ModelFile, caller: SubGraph, i: int, branches: list[SubGraph], slot: int) -> bool:
    """Whether operand `i` (IF operand 1 + slot) is a constant the branches can hold as theirs: same type and
    shape there, and not a branch output (an output must be a tensor the branch computes or is given)."""
    t = caller.tensors[i] if i >= 0 else None
    if t is None or t.buffer >= len(model.buffers) or model.buffers[t.buffer].data is None or \
            model.buffers[t.buffer].data.size == 0:
        return False
    for b in branches:
        target = b.inputs[slot]
        mine = b.tensors[target]
        if target in b.outputs or mine.type != t.type or list(mine.shape or []) != list(t.shape or []):
            return False
    return True


# ------------------------------------------------------------------------------------------ calibration


def subgraph_values(interpreter: Any, model: ModelFile, k: int) -> dict[int, np.ndarray]:
    """Every tensor of subgraph k the interpreter holds a value of (constants included: cheap views)."""
    values = {}
    for i in range(len(model.subgraphs[k].tensors)):
        try:
            values[i] = interpreter.get_tensor(i, k)
        except ValueError:  # a tensor with no numpy type (a resource handle) or no value
            continue
    return values


def replay_calls(interpreter: Any, model: ModelFile, k: int, values: dict[int, np.ndarray], record: Record) -> None:
    """Replays every IF, WHILE and CALL_ONCE of subgraph k, whose tensors held `values` after one call,
    recording each called subgraph's tensors at each call."""
    for op in model.subgraphs[k].operators:
        name = model.op_name(op)
        if name == "IF":
            then, other = callees(op)
            branch = then if bool(np.asarray(values[op.inputs[0]]).reshape(-1)[0]) else other
            _call(interpreter, model, branch, [values[i] for i in op.inputs[1:]], record)
        elif name == "WHILE":
            cond, body = callees(op)
            args = [values[i] for i in op.inputs]
            for _ in range(MAX_REPLAYED_ITERATIONS):
                if not bool(np.asarray(_call(interpreter, model, cond, args, record)[0]).reshape(-1)[0]):
                    break
                args = _call(interpreter, model, body, args, record)
            else:
                raise QuantizationError(f"calibration: a WHILE of subgraph {k} ran {MAX_REPLAYED_ITERATIONS} "
                                        "iterations when replayed")
        elif name == "CALL_ONCE":  # ran once, at the first invoke: its tensors are as it left them
            init = callees(op)[0]
            init_values = subgraph_values(interpreter, model, init)
            record(init, init_values)
            replay_calls(interpreter, model, init, init_values, record)


def _call(interpreter: Any, model: ModelFile, j: int, args: list[np.ndarray], record: Record) -> list[np.ndarray]:
    """Runs subgraph j alone on `args`, records its tensors, replays its own calls; returns its outputs."""
    sg = model.subgraphs[j]
    if any(model.op_name(op) == "ASSIGN_VARIABLE" for op in sg.operators):
        raise QuantizationError(f"subgraph {j} ({sg.name!r}) assigns a resource variable inside an IF or WHILE: "
                                "calibration would assign it twice; rillet cannot quantize such a model in int8")
    args = [np.asarray(a) for a in args]
    if any(tuple(interpreter._current_shape(i, j)) != a.shape for i, a in zip(sg.inputs, args)):
        for i, a in zip(sg.inputs, args):
            interpreter._resize(i, np.array(a.shape, dtype=np.int32), False, j)
        interpreter.allocate_tensors()
    for i, a in zip(sg.inputs, args):
        interpreter._set(i, a, j)
    interpreter._invoke(j)
    values = subgraph_values(interpreter, model, j)
    record(j, values)
    replay_calls(interpreter, model, j, values, record)
    return [values[o] for o in sg.outputs]


def can_replay(interpreter: Any) -> bool:
    """Whether `interpreter` runs one subgraph at a time (rillet's does; LiteRT's Python API does not)."""
    return all(hasattr(interpreter, name) for name in ("_invoke", "_set", "_resize", "_current_shape"))


SHARED_CONSTANT_MAX = 1024  # elements: scalars and small vectors; shared weights get per-use int8 copies anyway


def split_shared_constants(model: ModelFile) -> ModelFile:
    """The model with each small float constant that several ops read given one tensor per reader (on the
    same buffer). int8 parameters belong to a tensor: litert-torch's layer norm reads the 0.0 its attention
    mask's SELECT_V2 also reads, and that SELECT_V2 ties the 0.0 to -3.4e38, a scale of 1e36 that the layer
    norm's SUB cannot use; one tensor per reader lets each op's rule choose."""
    changed = False
    subgraphs = []
    for k, sg in enumerate(model.subgraphs):
        tensors, operators, seen = list(sg.tensors), list(sg.operators), set()
        for n, op in enumerate(operators):
            inputs = list(op.inputs or [])
            for slot, i in enumerate(inputs):
                t = sg.tensors[i] if i >= 0 else None
                if t is None or t.type != 0 or i in sg.inputs:
                    continue
                data = model.tensor_data(k, i)
                if data is None or data.size > SHARED_CONSTANT_MAX:
                    continue
                if i in seen:
                    tensors.append(t)
                    inputs[slot] = len(tensors) - 1
                seen.add(i)
            if inputs != list(op.inputs or []):
                operators[n] = dataclasses.replace(op, inputs=inputs)
                changed = True
        subgraphs.append(dataclasses.replace(sg, tensors=tensors, operators=operators))
    return dataclasses.replace(model, subgraphs=subgraphs) if changed else model
