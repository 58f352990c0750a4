"""Removing what a rewritten model no longer uses: tensors that no op, subgraph input or output and no
signature names, and buffers that no tensor or metadata entry names. The rest is renumbered and every
reference to it (ops, subgraph inputs and outputs, signatures, metadata) follows. Shared by the weight
expansion (converter/dense_weights.py) and the frozen int8 extractor (quant/frozen.py)."""

from __future__ import annotations

import dataclasses

from .model import ModelFile, TensorMap


def drop_unused_tensors(m: ModelFile) -> ModelFile:
    named: dict[int, set[int]] = {}
    for sd in m.signature_defs or []:
        named.setdefault(sd.subgraph_index, set()).update(
            t.tensor_index for t in [*(sd.inputs or []), *(sd.outputs or [])])
    renames, subgraphs = [], []
    for k, sg in enumerate(m.subgraphs):
        used = sorted({i for op in sg.operators for i in [*(op.inputs or []), *(op.outputs or []),
                                                          *(op.intermediates or [])] if i >= 0}
                      | set(sg.inputs) | set(sg.outputs) | named.get(k, set()))
        rename = {old: new for new, old in enumerate(used)}
        renames.append(rename)

        def moved(indices: list[int] | None, rename: dict[int, int] = rename) -> list[int] | None:
            return None if indices is None else [rename[i] if i >= 0 else i for i in indices]

        subgraphs.append(dataclasses.replace(
            sg, tensors=[sg.tensors[i] for i in used], inputs=moved(sg.inputs), outputs=moved(sg.outputs),
            operators=[dataclasses.replace(op, inputs=moved(op.inputs), outputs=moved(op.outputs),
                                           intermediates=moved(op.intermediates)) for op in sg.operators]))
    signatures = None if m.signature_defs is None else [dataclasses.replace(
        sd, inputs=[TensorMap(t.name, renames[sd.subgraph_index][t.tensor_index]) for t in sd.inputs or []],
        outputs=[TensorMap(t.name, renames[sd.subgraph_index][t.tensor_index]) for t in sd.outputs or []])
        for sd in m.signature_defs]
    return dataclasses.replace(m, subgraphs=subgraphs, signature_defs=signatures)


def drop_unused_buffers(m: ModelFile) -> ModelFile:
    """Buffer 0, the empty one, stays first."""
    used = sorted({0} | {t.buffer for sg in m.subgraphs for t in sg.tensors}
                  | {e.buffer for e in m.metadata or []} | set(m.metadata_buffer or []))
    rename = {old: new for new, old in enumerate(used)}
    subgraphs = [dataclasses.replace(sg, tensors=[dataclasses.replace(t, buffer=rename[t.buffer]) for t in sg.tensors])
                 for sg in m.subgraphs]
    metadata = None if m.metadata is None else [dataclasses.replace(e, buffer=rename[e.buffer]) for e in m.metadata]
    metadata_buffer = None if m.metadata_buffer is None else [rename[b] for b in m.metadata_buffer]
    return dataclasses.replace(m, subgraphs=subgraphs, buffers=[m.buffers[b] for b in used], metadata=metadata,
                               metadata_buffer=metadata_buffer)
