"""Baking trained variables into an inference model: the signature's subgraph with each READ_VARIABLE
replaced by a constant holding the variable's current value, and VAR_HANDLE and CALL_ONCE dropped, so
the file runs in any TFLite runtime without resource variables."""

from __future__ import annotations

import copy

import numpy as np

from rillet.converter.format import Buffer, ModelFile, SignatureDef


from .variables import variable_key


def bake_variables(model: ModelFile, signature: SignatureDef,
                   values: dict[tuple[str, str], np.ndarray]) -> ModelFile:
    """A copy of `model` holding only `signature`'s subgraph, its variables read as constants."""
    baked = copy.copy(model)
    baked.buffers = list(model.buffers)
    sg = copy.deepcopy(model.subgraphs[signature.subgraph_index])
    handles: dict[int, tuple[str, str]] = {}
    kept = []
    for index, op in enumerate(sg.operators):
        name = model.op_name(op)
        if name == "VAR_HANDLE":
            handles[op.outputs[0]] = variable_key(op.builtin_options)
        elif name == "ASSIGN_VARIABLE":
            raise ValueError(f"signature {signature.signature_key!r} assigns variables (op {index}): export an "
                             "inference signature")
        elif name == "READ_VARIABLE":
            key = handles.get(op.inputs[0])
            if key is None or key not in values:
                raise ValueError(f"signature {signature.signature_key!r}: op {index} reads a variable that has no "
                                 "value (invoke a signature first, or restore a checkpoint)")
            tensor, value = sg.tensors[op.outputs[0]], values[key]
            if list(value.shape) != list(tensor.shape or []) or value.dtype != tensor.dtype:
                raise ValueError(f"variable {'/'.join(k for k in key if k)!r} is {value.dtype} {list(value.shape)}, "
                                 f"op {index} reads {tensor.dtype} {list(tensor.shape or [])}")
            baked.buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value).tobytes(), dtype=np.uint8)))
            tensor.buffer = len(baked.buffers) - 1
        elif name != "CALL_ONCE":
            kept.append(op)
    sg.operators = kept
    baked.subgraphs = [sg]
    baked.signature_defs = [SignatureDef(inputs=signature.inputs, outputs=signature.outputs,
                                         signature_key=signature.signature_key, subgraph_index=0)]
    return baked
