"""Float16-weight models (TensorFlow's float16 quantization: each float16 constant widened by a DEQUANTIZE)
back to float32 constants, so that they quantize like any float model: int8, dynamic-range, or float16
again. Widening float16 to float32 is exact, so the folded model computes what the original does."""

from __future__ import annotations

import dataclasses

import numpy as np

from .format import Buffer, ModelFile, TensorMap

FLOAT16 = 1  # TensorType


def _widened(model: ModelFile, sg_index: int) -> dict[int, tuple[int, np.ndarray]]:
    """op index -> (its output, the float32 value) for each DEQUANTIZE of a float16 constant."""
    sg = model.subgraphs[sg_index]
    found = {}
    for j, op in enumerate(sg.operators):
        ins, outs = op.inputs or [], op.outputs or []
        if model.op_name(op) != "DEQUANTIZE" or len(ins) != 1 or len(outs) != 1 or ins[0] < 0:
            continue
        if sg.tensors[ins[0]].type == FLOAT16:
            data = model.tensor_data(sg_index, ins[0])
            if data is not None:
                found[j] = (outs[0], data.astype(np.float32))
    return found


def has_float16_weights(model: ModelFile) -> bool:
    return any(_widened(model, k) for k in range(len(model.subgraphs)))


def widen_float16_weights(model: ModelFile) -> ModelFile:
    """`model` with every DEQUANTIZE of a float16 constant replaced by the float32 constant it computes;
    the float16 tensors and buffers no op uses any more are dropped. A model without them comes back as is."""
    if not has_float16_weights(model):
        return model
    buffers = list(model.buffers)
    subgraphs = []
    renames: list[dict[int, int]] = []
    for k, sg in enumerate(model.subgraphs):
        widened = _widened(model, k)
        tensors = list(sg.tensors)
        for out, value in widened.values():
            buffers.append(Buffer(data=np.frombuffer(value.tobytes(), np.uint8)))
            tensors[out] = dataclasses.replace(tensors[out], buffer=len(buffers) - 1)
        operators = [op for j, op in enumerate(sg.operators) if j not in widened]
        used = sorted({i for op in operators for i in (op.inputs or []) + (op.outputs or []) +
                       (op.intermediates or []) if i >= 0} | set(sg.inputs) | set(sg.outputs))
        rename = {old: new for new, old in enumerate(used)}
        renames.append(rename)

        def moved(indices: list[int] | None, rename: dict[int, int] = rename) -> list[int] | None:
            return None if indices is None else [rename[i] if i >= 0 else i for i in indices]

        subgraphs.append(dataclasses.replace(
            sg, tensors=[tensors[i] for i in used], inputs=moved(sg.inputs), outputs=moved(sg.outputs),
            operators=[dataclasses.replace(op, inputs=moved(op.inputs), outputs=moved(op.outputs),
                                           intermediates=moved(op.intermediates)) for op in operators]))
    signatures = None
    if model.signature_defs is not None:
        signatures = [dataclasses.replace(
            sd, inputs=[TensorMap(name=m.name, tensor_index=renames[sd.subgraph_index][m.tensor_index])
                        for m in sd.inputs or []],
            outputs=[TensorMap(name=m.name, tensor_index=renames[sd.subgraph_index][m.tensor_index])
                     for m in sd.outputs or []]) for sd in model.signature_defs]
    return _drop_unused_buffers(dataclasses.replace(model, subgraphs=subgraphs, buffers=buffers,
                                                    signature_defs=signatures))


def _drop_unused_buffers(model: ModelFile) -> ModelFile:
    """Buffers no tensor or metadata entry names any more, removed (buffer 0, the empty one, stays first)."""
    used = {0} | {t.buffer for sg in model.subgraphs for t in sg.tensors}
    used |= {m.buffer for m in model.metadata or []} | set(model.metadata_buffer or [])
    order = sorted(used)
    rename = {old: new for new, old in enumerate(order)}
    subgraphs = [dataclasses.replace(sg, tensors=[dataclasses.replace(t, buffer=rename[t.buffer])
                                                  for t in sg.tensors]) for sg in model.subgraphs]
    metadata = None if model.metadata is None else [dataclasses.replace(m, buffer=rename[m.buffer])
                                                    for m in model.metadata]
    metadata_buffer = None if model.metadata_buffer is None else [rename[b] for b in model.metadata_buffer]
    return dataclasses.replace(model, subgraphs=subgraphs, buffers=[model.buffers[b] for b in order],
                               metadata=metadata, metadata_buffer=metadata_buffer)
