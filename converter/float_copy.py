"""A quantized .tflite as the float model it stands for (float_copy), for training a quantized model's
layers in float and for quantizing a fine-tuned int8 model again from new data."""

from __future__ import annotations

import dataclasses

import numpy as np

from .format import Buffer, ModelFile, SubGraph, TensorMap
from .frozen_copy import is_constant, is_quantized

def float_copy(tail: ModelFile, keep_fake_quant: bool = False) -> ModelFile:
    """A quantized model (its first signature's subgraph, and the subgraphs its IF and WHILE ops call) in float:
    its quantized constants dequantized with their scales (an int8 filter per channel, its int32 bias), its
    quantized activations float32, and its QUANTIZE/DEQUANTIZE ops of activations dropped (each output read as
    its input). Inputs and outputs keep their indices (an int8 input becomes the float value it stands for).
    `trainable` takes a quantized model's trained tail this way (the splice puts a DEQUANTIZE in front of an int8
    input and, in `infer`, a QUANTIZE after an int8 output); `recalibrated` takes a whole fine-tuned int8 model
    to quantize again. keep_fake_quant: a float model's fake quantization (a QUANTIZE of a float tensor whose
    levels only DEQUANTIZEs read, a quantization-aware model's) stays as it is, so the float copy computes what
    the model does (its straight-through gradient trains through it)."""
    kept = [_fake_quant_levels(tail, k) if keep_fake_quant else set() for k in range(len(tail.subgraphs))]
    if not any(is_quantized(t) for sg, held in zip(tail.subgraphs, kept) for k, t in enumerate(sg.tensors)
               if k not in held):
        return tail
    buffers = list(tail.buffers)
    subgraphs, aliases = [], []
    for sg, held in zip(tail.subgraphs, kept):
        sub, alias = _float_subgraph(tail, sg, held, buffers)
        subgraphs.append(sub)
        aliases.append(alias)
    sig = tail.signature_defs[0]
    outputs = [TensorMap(name=tm.name, tensor_index=aliases[0].get(tm.tensor_index, tm.tensor_index))
               for tm in sig.outputs]
    subgraphs[0] = dataclasses.replace(subgraphs[0], outputs=[tm.tensor_index for tm in outputs])
    return dataclasses.replace(tail, subgraphs=subgraphs, buffers=buffers,
                               signature_defs=[dataclasses.replace(sig, outputs=outputs)])


def _float_subgraph(m: ModelFile, sg: SubGraph, kept: set[int], buffers: list[Buffer]
                    ) -> tuple[SubGraph, dict[int, int]]:
    """One subgraph in float (float_copy), the dequantized constants' buffers appended to `buffers`; the tensors
    that dropped QUANTIZE/DEQUANTIZE ops gave, each mapped to the tensor read in its place. A called subgraph's
    outputs follow those (its inputs keep their tensors)."""
    tensors = list(sg.tensors)
    for k, t in enumerate(sg.tensors):
        if not is_quantized(t) or k in kept:
            continue
        q = t.quantization
        if is_constant(m, t):
            values = np.asarray(m.buffers[t.buffer].data).view(t.dtype).reshape(t.shape).astype(np.float64)
            scale, zero = np.asarray(q.scale, np.float64), np.asarray(q.zero_point or [0], np.float64)
            if scale.size > 1:
                axis_shape = [1] * len(t.shape)
                axis_shape[q.quantized_dimension] = scale.size
                scale, zero = scale.reshape(axis_shape), zero.reshape(axis_shape) if zero.size > 1 else zero
            real = ((values - zero) * scale).astype(np.float32)
            buffers.append(Buffer(data=np.frombuffer(real.tobytes(), np.uint8)))
            tensors[k] = dataclasses.replace(t, type=_FLOAT32, quantization=None, buffer=len(buffers) - 1)
        else:
            tensors[k] = dataclasses.replace(t, type=_FLOAT32, quantization=None)
    alias: dict[int, int] = {}
    operators = []
    for op in sg.operators:
        inputs = [alias.get(i, i) for i in op.inputs or []]
        kind = m.op_name(op)
        if kind in ("QUANTIZE", "DEQUANTIZE") and not is_constant(m, sg.tensors[inputs[0]]) \
                and not {*inputs, *op.outputs} & kept:
            alias[op.outputs[0]] = inputs[0]
            continue
        operators.append(dataclasses.replace(op, inputs=inputs))
    outputs = [alias.get(o, o) for o in sg.outputs or []]
    return dataclasses.replace(sg, tensors=tensors, operators=operators, outputs=outputs), alias


def _fake_quant_levels(m: ModelFile, k: int) -> set[int]:
    """The levels of subgraph k's fake quantizations: QUANTIZE outputs of a float32 tensor that only DEQUANTIZEs
    read (and the subgraph does not give out)."""
    sg = m.subgraphs[k]
    readers: dict[int, set[str]] = {}
    for op in sg.operators:
        for i in op.inputs or []:
            readers.setdefault(i, set()).add(m.op_name(op))
    return {op.outputs[0] for op in sg.operators
            if m.op_name(op) == "QUANTIZE" and sg.tensors[op.inputs[0]].dtype == np.float32
            and not is_quantized(sg.tensors[op.inputs[0]]) and readers.get(op.outputs[0]) == {"DEQUANTIZE"}
            and op.outputs[0] not in sg.outputs}


_FLOAT32 = 0  # TensorType
