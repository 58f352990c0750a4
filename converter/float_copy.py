"""A quantized .tflite as the float model it stands for (float_copy), for training a quantized model's
layers in float and for quantizing a fine-tuned int8 model again from new data."""

from __future__ import annotations

import dataclasses

import numpy as np

from .format import Buffer, ModelFile, TensorMap
from .frozen_copy import is_constant, is_quantized

def float_copy(tail: ModelFile) -> ModelFile:
    """A single-subgraph quantized model (its first signature's) in float: its quantized constants dequantized
    with their scales (an int8 filter per channel, its int32 bias), its quantized activations float32, and
    its QUANTIZE/DEQUANTIZE ops of activations dropped (each output read as its input). Inputs and outputs
    keep their indices (an int8 input becomes the float value it stands for). `trainable` takes a quantized
    model's trained tail this way (the splice puts a DEQUANTIZE in front of an int8 input and, in `infer`, a
    QUANTIZE after an int8 output); `recalibrated` takes a whole fine-tuned int8 model to quantize again."""
    sg = tail.subgraphs[0]
    if not any(is_quantized(t) for t in sg.tensors):
        return tail
    buffers, tensors = list(tail.buffers), list(sg.tensors)
    for k, t in enumerate(sg.tensors):
        if not is_quantized(t):
            continue
        q = t.quantization
        if is_constant(tail, t):
            values = np.asarray(tail.buffers[t.buffer].data).view(t.dtype).reshape(t.shape).astype(np.float64)
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
        kind = tail.op_name(op)
        if kind in ("QUANTIZE", "DEQUANTIZE") and not is_constant(tail, sg.tensors[inputs[0]]):
            alias[op.outputs[0]] = inputs[0]
            continue
        operators.append(dataclasses.replace(op, inputs=inputs))
    sig = tail.signature_defs[0]
    outputs = [TensorMap(name=tm.name, tensor_index=alias.get(tm.tensor_index, tm.tensor_index)) for tm in sig.outputs]
    sub = dataclasses.replace(sg, tensors=tensors, operators=operators, outputs=[tm.tensor_index for tm in outputs])
    return dataclasses.replace(tail, subgraphs=[sub], buffers=buffers,
                               signature_defs=[dataclasses.replace(sig, outputs=outputs)])


_FLOAT32 = 0  # TensorType
