"""Baking trained variables into an inference model: the signature's subgraph (and the subgraphs its IF, WHILE
and CALL_ONCE ops call) with each READ_VARIABLE of a trained variable replaced by a constant holding the
variable's current value, its VAR_HANDLE gone and a CALL_ONCE left with nothing to initialise dropped, so the
file runs in any TFLite runtime. A variable the signature itself assigns (a streaming model's buffers of past
frames, which `infer` updates at every call) is the model's running state, not a weight: it stays a variable,
initialised as the original initialised it."""

from __future__ import annotations

import copy

import numpy as np

from rillet.converter.format import Buffer, ModelFile, SignatureDef
from rillet.converter.format.prune import drop_unused_tensors
from rillet.converter.format.variable_roles import decode_roles

from .variables import variable_key

# The options fields that name a called subgraph (IF, WHILE, CALL_ONCE).
CALLED = ("then_subgraph_index", "else_subgraph_index", "cond_subgraph_index", "body_subgraph_index",
          "init_subgraph_index")


def _calls(sg) -> list[tuple[str, int]]:
    return [(field, getattr(op.builtin_options, field)) for op in sg.operators for field in CALLED
            if op.builtin_options is not None and getattr(op.builtin_options, field, None) is not None]


def _reached(subgraphs, start: int) -> list[int]:
    """The subgraphs `start` calls, itself first, in the order they are first called (a list or a dict)."""
    order, todo = [start], [start]
    while todo:
        for _, index in _calls(subgraphs[todo.pop()]):
            if index not in order:
                order.append(index)
                todo.append(index)
    return order


def _assigned(model: ModelFile, sg) -> set[tuple[str, str]]:
    handles = {op.outputs[0]: variable_key(op.builtin_options) for op in sg.operators
               if model.op_name(op) == "VAR_HANDLE"}
    return {handles[op.inputs[0]] for op in sg.operators
            if model.op_name(op) == "ASSIGN_VARIABLE" and op.inputs[0] in handles}


def bake_variables(model: ModelFile, signature: SignatureDef,
                   values: dict[tuple[str, str], np.ndarray]) -> ModelFile:
    """A copy of `model` holding only `signature`'s subgraph and those it calls, its weights' variables read
    as constants."""
    reached = _reached(model.subgraphs, signature.subgraph_index)
    inits = {index for k in reached for field, index in _calls(model.subgraphs[k]) if field == "init_subgraph_index"}
    state = set().union(*(_assigned(model, model.subgraphs[k]) for k in reached if k not in inits))
    roles = decode_roles(model)
    # a file without roles (TensorFlow's training file) cannot tell state from weights: it exports read-only
    updated = [name for name in ("/".join(k for k in key if k) for key in sorted(state))
               if not roles or roles.get(name) in ("trained", "optimizer_slots", "statistics")]
    if updated:
        raise ValueError(f"signature {signature.signature_key!r} assigns variables a training step updates "
                         f"({', '.join(updated)}): export an inference signature")
    baked = copy.copy(model)
    baked.buffers = list(model.buffers)
    subgraphs = {k: copy.deepcopy(model.subgraphs[k]) for k in reached}
    for k in reached:
        sg = subgraphs[k]
        handles: dict[int, tuple[str, str]] = {}
        kept = []
        for index, op in enumerate(sg.operators):
            name = model.op_name(op)
            key = variable_key(op.builtin_options) if name == "VAR_HANDLE" else handles.get((op.inputs or [-1])[0])
            if name == "VAR_HANDLE":
                handles[op.outputs[0]] = key
                if key in state:
                    kept.append(op)
            elif name in ("ASSIGN_VARIABLE", "READ_VARIABLE") and key in state:
                kept.append(op)
            elif name == "ASSIGN_VARIABLE":  # a weight's initial value, set by a CALL_ONCE: the constant now
                continue
            elif name == "READ_VARIABLE":
                if key is None or key not in values:
                    raise ValueError(f"signature {signature.signature_key!r}: op {index} reads a variable that has "
                                     "no value (invoke a signature first, or restore a checkpoint)")
                tensor, value = sg.tensors[op.outputs[0]], values[key]
                if list(value.shape) != list(tensor.shape or []) or value.dtype != tensor.dtype:
                    raise ValueError(f"variable {'/'.join(k for k in key if k)!r} is {value.dtype} "
                                     f"{list(value.shape)}, op {index} reads {tensor.dtype} {list(tensor.shape or [])}")
                baked.buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value).tobytes(), dtype=np.uint8)))
                tensor.buffer = len(baked.buffers) - 1
            else:
                kept.append(op)
        sg.operators = kept
    # a CALL_ONCE whose subgraph initialised only weights has nothing left to do
    empty = {k for k in inits if not subgraphs[k].operators}
    for sg in subgraphs.values():
        sg.operators = [op for op in sg.operators
                        if getattr(op.builtin_options, "init_subgraph_index", None) not in empty]
    order = _reached(subgraphs, signature.subgraph_index)
    renumber = {old: new for new, old in enumerate(order)}
    for sg in subgraphs.values():
        for op in sg.operators:
            for field in CALLED:
                if op.builtin_options is not None and getattr(op.builtin_options, field, None) is not None:
                    setattr(op.builtin_options, field, renumber[getattr(op.builtin_options, field)])
    baked.subgraphs = [subgraphs[k] for k in order]
    baked.signature_defs = [SignatureDef(inputs=signature.inputs, outputs=signature.outputs,
                                         signature_key=signature.signature_key, subgraph_index=0)]
    return drop_unused_tensors(baked)

