"""Weights stored packed, expanded back to the dense float32 constants they stand for: TensorFlow's float16
weights (a DEQUANTIZE widens each float16 constant) and sparse weights (a DENSIFY expands each constant
in TFLite's sparsity format, often float16 too). The quantizer and `to_graph` then see a float model;
float16 widens to float32 exactly, so the expanded model computes what the original does."""

from __future__ import annotations

import dataclasses

import numpy as np

from .format import Buffer, ModelError, ModelFile
from .format.prune import drop_unused_buffers, drop_unused_tensors
from .format.schema import TENSOR_TYPE_DTYPES

FLOAT16 = 1  # TensorType
DENSE = 0    # DimensionType; SPARSE_CSR is 1


def has_packed_weights(model: ModelFile) -> bool:
    return any(_expanded(model, k) for k in range(len(model.subgraphs)))


def expand_weights(model: ModelFile) -> ModelFile:
    """`model` with every DENSIFY of a sparse constant and DEQUANTIZE of a float16 constant replaced by the
    constant it computes; the packed tensors and buffers nothing uses any more are dropped. A model without
    them comes back as it is."""
    if not has_packed_weights(model):
        return model
    buffers = list(model.buffers)
    subgraphs = []
    for k, sg in enumerate(model.subgraphs):
        expanded = _expanded(model, k)
        tensors = list(sg.tensors)
        for out, value in expanded.values():
            buffers.append(Buffer(data=np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8)))
            tensors[out] = dataclasses.replace(tensors[out], buffer=len(buffers) - 1)
        operators = [op for j, op in enumerate(sg.operators) if j not in expanded]
        subgraphs.append(dataclasses.replace(sg, tensors=tensors, operators=operators))
    return drop_unused_buffers(drop_unused_tensors(dataclasses.replace(model, subgraphs=subgraphs, buffers=buffers)))


def _expanded(model: ModelFile, sg_index: int) -> dict[int, tuple[int, np.ndarray]]:
    """op index -> (its output, its value) for each DENSIFY of a sparse constant and each DEQUANTIZE of a
    float16 constant (one a DENSIFY expanded included), in the order the ops run."""
    sg = model.subgraphs[sg_index]
    values: dict[int, np.ndarray] = {}  # tensor -> the value an expanded op gave it
    found = {}
    for j, op in enumerate(sg.operators):
        ins, outs = op.inputs or [], op.outputs or []
        name = model.op_name(op)
        if name not in ("DENSIFY", "DEQUANTIZE") or len(ins) != 1 or len(outs) != 1 or ins[0] < 0:
            continue
        source = sg.tensors[ins[0]]
        if name == "DENSIFY" and source.sparsity is not None and source.buffer:
            value = densify(model, sg_index, ins[0])
        elif name == "DEQUANTIZE" and source.type == FLOAT16:
            half = values.get(ins[0])
            if half is None:
                half = model.tensor_data(sg_index, ins[0])
            if half is None:
                continue
            value = half.astype(np.float32)
        else:
            continue
        values[outs[0]] = value
        found[j] = (outs[0], value)
    return found


def densify(model: ModelFile, sg_index: int, index: int) -> np.ndarray:
    """The dense value of a constant stored in TFLite's sparsity format: its dimensions (the tensor's, then
    one per block dimension) are walked in traversal order, DENSE levels over every index and SPARSE_CSR
    levels over the indices their segments list; the stored values come in that order."""
    t = model.subgraphs[sg_index].tensors[index]
    sparsity = t.sparsity
    dtype = np.dtype(TENSOR_TYPE_DTYPES[t.type])
    stored = model.buffers[t.buffer].data.view(dtype)
    shape = list(t.shape)
    rank = len(shape)
    order = list(sparsity.traversal_order)
    block_map = list(sparsity.block_map or [])
    levels = list(sparsity.dim_metadata)
    if sorted(order) != list(range(rank + len(block_map))) or len(levels) != len(order):
        raise ModelError(f"tensor {index} {t.name!r}: its sparsity's traversal order {order} does not fit its "
                         f"{rank} dimensions and {len(block_map)} block dimensions")
    parents = np.zeros(1, np.int64)     # per path so far: its position in the level it came from
    coords = np.zeros((1, 0), np.int64)  # per path: its index at each level walked
    for level in levels:
        if level.format == DENSE:
            size = int(level.dense_size)
            parents = (parents[:, None] * size + np.arange(size)).reshape(-1)
            coords = np.concatenate([np.repeat(coords, size, axis=0),
                                     np.tile(np.arange(size), len(coords))[:, None]], axis=1)
        else:
            segments = np.asarray(level.array_segments.values, np.int64)
            indices = np.asarray(level.array_indices.values, np.int64)
            if parents.size and (parents.max() + 1 >= len(segments) or segments[-1] > len(indices)):
                raise ModelError(f"tensor {index} {t.name!r}: its sparse segments point outside its indices")
            starts, counts = segments[parents], segments[parents + 1] - segments[parents]
            if np.any(counts < 0):
                raise ModelError(f"tensor {index} {t.name!r}: its sparse segments decrease")
            positions = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
            coords = np.concatenate([np.repeat(coords, counts, axis=0), indices[positions][:, None]], axis=1)
            parents = positions
    if len(coords) != stored.size:
        raise ModelError(f"tensor {index} {t.name!r}: its sparsity walks {len(coords)} values, its buffer holds "
                         f"{stored.size}")
    by_dim = np.empty_like(coords)
    by_dim[:, order] = coords  # each column now one dimension: the tensor's, then the block dimensions
    dense_index = by_dim[:, :rank].copy()
    for b, dim in enumerate(block_map):
        block_size = int(levels[order.index(rank + b)].dense_size)
        dense_index[:, dim] = dense_index[:, dim] * block_size + by_dim[:, rank + b]
    dense = np.zeros(shape, dtype)
    if np.any(dense_index >= np.asarray(shape)):
        raise ModelError(f"tensor {index} {t.name!r}: its sparsity points outside its shape {shape}")
    dense[tuple(dense_index.T)] = stored
    return dense
