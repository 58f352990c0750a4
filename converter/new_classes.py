"""New classes for a shipped classifier: widen its head (the last FULLY_CONNECTED or CONV_2D before the output)
from K classes to N, so that fine-tuning on the device can teach it classes it was never trained on.

The head's weight rows (output channels) K..N-1 are zeros and its bias zeros: the new classes' logits start at
0 and the old classes' at what they were, bit for bit (each output channel is computed on its own). The ops
between the head and the model's output may only pass the class axis through (SOFTMAX, LOGISTIC, QUANTIZE,
DEQUANTIZE, RESHAPE, SQUEEZE): their tensors' last dimension K becomes N, a RESHAPE's target with it (a
constant one, or Keras Flatten's PACK of the batch and K). A
quantized head's new channels take the largest of the old channels' weight scales (room for the weights
training gives them, since `infer` quantizes them with these scales) and the bias scale that goes with it;
the activations keep their scales.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .format import Buffer, ModelError, ModelFile, Operator, Options, Tensor

HEADS = {"FULLY_CONNECTED", "CONV_2D"}
PASS_CLASSES = {"SOFTMAX", "LOGISTIC", "QUANTIZE", "DEQUANTIZE", "RESHAPE", "SQUEEZE"}


def with_classes(m: ModelFile, sg_index: int, output: int, classes: int) -> tuple[ModelFile, int]:
    """A copy of `m` whose head before tensor `output` (of subgraph `sg_index`) has `classes` outputs; returns
    it and the head's op index. ModelError names what stands in the way (an op between head and output that
    mixes classes, a tensor read elsewhere, a float16 head)."""
    sg = m.subgraphs[sg_index]
    producer = {o: j for j, op in enumerate(sg.operators) for o in op.outputs or []}
    chain, t = [], output
    while True:
        if t not in producer:
            raise ModelError(f"classes: tensor {sg.tensors[t].name!r} is not made by an op: no head found before it")
        j = producer[t]
        kind = m.op_name(sg.operators[j])
        chain.append(j)
        if kind in HEADS:
            break
        if kind not in PASS_CLASSES:
            raise ModelError(f"classes: the {kind} between the head and output {sg.tensors[output].name!r} "
                             f"may mix classes; only {', '.join(sorted(PASS_CLASSES))} may stand there")
        t = sg.operators[j].inputs[0]
    head = chain[-1]
    old = sg.tensors[sg.operators[head].outputs[0]].shape[-1]
    if classes <= old:
        raise ValueError(f"classes {classes}: the model has {old} already (give more to add new ones)")
    widened = {sg.operators[j].outputs[0] for j in chain}
    for j, op in enumerate(sg.operators):
        # SHAPE reads no values: Keras' Flatten takes the batch from it and reshapes to [batch, -1]
        if j not in chain and widened & set(op.inputs or []) and m.op_name(op) != "SHAPE":
            raise ModelError(f"classes: {m.op_name(op)} reads the head's classes too; it would need widening")

    m = dataclasses.replace(m, buffers=list(m.buffers), subgraphs=list(m.subgraphs))
    sg = m.subgraphs[sg_index] = dataclasses.replace(sg, tensors=list(sg.tensors), operators=list(sg.operators))
    op = sg.operators[head]
    inputs = list(op.inputs)
    inputs[1], new_scale = _widen_constant(m, sg_index, inputs[1], classes, None)
    if len(inputs) > 2 and inputs[2] >= 0:
        in_scale = _scales(sg.tensors[inputs[0]])
        inputs[2], _ = _widen_constant(m, sg_index, inputs[2], classes,
                                       None if new_scale is None or in_scale is None else new_scale * in_scale[0])
    sg.operators[head] = dataclasses.replace(op, inputs=inputs)
    for j in chain:
        o = sg.operators[j].outputs[0]
        sg.tensors[o] = _last_dim(sg.tensors[o], old, classes)
        if m.op_name(sg.operators[j]) == "RESHAPE":
            sg.operators[j] = _reshape_to(m, sg_index, sg.operators[j], old, classes)
    return m, head


def _scales(t: Tensor) -> list[float] | None:
    q = t.quantization
    return list(q.scale) if q is not None and q.scale else None


def _widen_constant(m: ModelFile, sg_index: int, i: int, classes: int,
                    bias_scale: float | None) -> tuple[int, float | None]:
    """Tensor i (a head's weights or bias, classes first) with zero rows up to `classes`, as a new tensor and
    buffer of its own (converters share equal constants between layers); returns the new tensor's index and
    the scale its new rows take (a quantized tensor's largest per-channel scale), or None."""
    sg = m.subgraphs[sg_index]
    t = sg.tensors[i]
    data = m.tensor_data(sg_index, i)
    if data is None:
        raise ModelError(f"classes: the head's {t.name!r} is not a constant (a float16 or sparse weight "
                         "widened at run time cannot be widened here)")
    q = t.quantization
    zero = int(q.zero_point[0]) if q is not None and q.zero_point else 0
    rows = np.full((classes - data.shape[0], *data.shape[1:]), zero, data.dtype)
    value = np.concatenate([data, rows])
    buffer = Buffer(data=np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8))
    m.buffers.append(buffer)
    scale = None
    if q is not None and q.scale and len(q.scale) > 1:  # per channel: one scale (and zero point) per class
        if q.quantized_dimension != 0:
            raise ModelError(f"classes: {t.name!r} is quantized along axis {q.quantized_dimension}, not its classes")
        scale = bias_scale if bias_scale is not None else max(q.scale)
        extra = classes - data.shape[0]
        q = dataclasses.replace(q, scale=[*q.scale, *[scale] * extra],
                                zero_point=[*(q.zero_point or [0] * len(q.scale)), *[zero] * extra])
    elif q is not None and q.scale:
        scale = q.scale[0]
    shape = [classes, *t.shape[1:]]
    sg.tensors.append(dataclasses.replace(t, shape=shape, buffer=len(m.buffers) - 1, quantization=q,
                                          shape_signature=shape if t.shape_signature else t.shape_signature))
    return len(sg.tensors) - 1, scale


def _last_dim(t: Tensor, old: int, classes: int) -> Tensor:
    if not t.shape or t.shape[-1] != old:
        raise ModelError(f"classes: {t.name!r} has shape {t.shape}, not the {old} classes last")
    signature = [*t.shape_signature[:-1], classes] if t.shape_signature else t.shape_signature
    return dataclasses.replace(t, shape=[*t.shape[:-1], classes], shape_signature=signature)


def _reshape_to(m: ModelFile, sg_index: int, op: Operator, old: int, classes: int) -> Operator:
    """A RESHAPE whose target's last entry (K, or -1) asks for `classes`: its options and shape input."""
    sg = m.subgraphs[sg_index]
    options = op.builtin_options
    if options is not None and getattr(options, "new_shape", None) is not None and len(options.new_shape):
        new_shape = list(options.new_shape)
        if new_shape[-1] == old:
            new_shape[-1] = classes
        options = Options(options.type_name, **{**options.fields(), "new_shape": new_shape})
    if len(op.inputs) > 1 and op.inputs[1] >= 0:
        i = op.inputs[1]
        target = m.tensor_data(sg_index, i)
        if target is not None and target[-1] == old:
            return dataclasses.replace(op, builtin_options=options,
                                       inputs=[op.inputs[0], _constant_like(m, sg_index, i, target, classes),
                                               *op.inputs[2:]])
        if target is None:  # Keras' Flatten: PACK(the batch from SHAPE, K); a -1 there follows by itself
            pack = next((j for j, other in enumerate(sg.operators) if i in (other.outputs or [])), None)
            if pack is not None and m.op_name(sg.operators[pack]) == "PACK":
                inputs = list(sg.operators[pack].inputs)
                last = m.tensor_data(sg_index, inputs[-1])
                if last is not None and last.size == 1 and int(last.reshape(-1)[0]) == old:
                    inputs[-1] = _constant_like(m, sg_index, inputs[-1], last, classes)
                    sg.operators[pack] = dataclasses.replace(sg.operators[pack], inputs=inputs)
    return dataclasses.replace(op, builtin_options=options)


def _constant_like(m: ModelFile, sg_index: int, i: int, value: np.ndarray, classes: int) -> int:
    """A new constant tensor like tensor i holding `value` with its last entry `classes`; its index."""
    sg = m.subgraphs[sg_index]
    value = value.copy()
    value.reshape(-1)[-1] = classes
    m.buffers.append(Buffer(data=np.frombuffer(value.tobytes(), np.uint8)))
    sg.tensors.append(dataclasses.replace(sg.tensors[i], buffer=len(m.buffers) - 1))
    return len(sg.tensors) - 1
