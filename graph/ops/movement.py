"""Data movement: reshapes, transposes, slices, concatenation, pack, shape, depth/space.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops
from ..core import Tensor, canonical_dtype
from ..registry import REQUIRED, OpDef, register
from . import _grad as grad
from .core import (
    _apply,
    _axis,
    _jnp,
    _operands,
    _tfl,
    as_tensor,
)

# --------------------------------------------------------------------------------------------- shapes


def _concat_infer(attrs, specs):
    rank = len(specs[0][0])
    axis = _axis(attrs["axis"], rank)
    dtype = specs[0][1]
    out = list(specs[0][0])
    for shape, d in specs[1:]:
        if d != dtype or len(shape) != rank:
            raise ValueError(f"inputs differ in dtype or rank: {specs}")
        for i, dim in enumerate(shape):
            if i == axis:
                out[i] = None if None in (out[i], dim) else out[i] + dim
            elif out[i] is None:
                out[i] = dim
            elif dim is not None and dim != out[i]:
                raise ValueError(f"inputs differ in dimension {i}: {[s for s, _ in specs]}")
    return [(tuple(out), dtype)]


register(OpDef("CONCATENATION", attrs={"axis": REQUIRED}, infer=_concat_infer,
               numpy=lambda a, *xs: np.concatenate(xs, axis=a["axis"]),
               jax=lambda a, *xs: _jnp().concatenate(xs, axis=a["axis"]),
               tflite=_tfl("CONCATENATION", "ConcatenationOptions", {"axis": "axis"})))


def concat(values: Sequence, axis: int, name: str | None = None) -> Tensor:
    """CONCATENATION: `values` (tensors or values) joined along `axis` (negative counts from the end).
    ValueError when their other dimensions or dtypes differ."""
    values = _operands(*values)
    return _apply("CONCATENATION", values, {"axis": _axis(axis, values[0].rank)}, name=name)


def _reshape_infer(attrs, specs):
    shape, dtype = specs[0]
    new = list(attrs["new_shape"])
    if new.count(-1) > 1:
        raise ValueError(f"new shape {new} has more than one -1")
    if None in shape:
        return [(tuple(None if d == -1 else d for d in new), dtype)]
    total = int(np.prod(shape))
    known = int(np.prod([d for d in new if d != -1]))
    if -1 in new:
        if known == 0 or total % known:
            raise ValueError(f"cannot reshape {shape} to {new}")
        new[new.index(-1)] = total // known
    elif known != total:
        raise ValueError(f"cannot reshape {shape} ({total} elements) to {new}")
    return [(tuple(new), dtype)]


register(OpDef("RESHAPE", attrs={"new_shape": REQUIRED}, infer=_reshape_infer,
               numpy=lambda a, x: x.reshape(a["new_shape"]), jax=lambda a, x: x.reshape(a["new_shape"]),
               tflite=_tfl("RESHAPE", "ReshapeOptions", {"new_shape": "new_shape"}, ["new_shape"],
                           notes="-1 marks the dynamic dimension")))


def reshape(x, shape: Sequence[int | None], name: str | None = None) -> Tensor:
    """RESHAPE: x's values in `shape`; one dimension may be -1 or None (inferred, e.g. the batch). ValueError
    when the sizes cannot match."""
    shape = tuple(-1 if d is None else int(d) for d in shape)
    return _apply("RESHAPE", [as_tensor(x)], {"new_shape": shape}, name=name)


def _squeeze_infer(attrs, specs):
    shape, dtype = specs[0]
    dims = {_axis(d, len(shape)) for d in attrs["squeeze_dims"]} or {i for i, d in enumerate(shape) if d == 1}
    for d in dims:
        if shape[d] not in (1, None):
            raise ValueError(f"cannot squeeze dimension {d} of size {shape[d]}")
    return [(tuple(d for i, d in enumerate(shape) if i not in dims), dtype)]


def _squeeze_np(a, x):
    dims = tuple(a["squeeze_dims"]) or tuple(i for i, d in enumerate(x.shape) if d == 1)
    return np.squeeze(x, axis=dims)


register(OpDef("SQUEEZE", attrs={"squeeze_dims": ()}, infer=_squeeze_infer, numpy=_squeeze_np,
               jax=lambda a, x: _jnp().squeeze(x, axis=tuple(a["squeeze_dims"]) or None),
               tflite=_tfl("SQUEEZE", "SqueezeOptions", {"squeeze_dims": "squeeze_dims"})))


def squeeze(x, axes: Sequence[int] = (), name: str | None = None) -> Tensor:
    """SQUEEZE: x without the size-1 axes `axes` (every size-1 axis when empty). ValueError for an axis whose
    size is not 1."""
    x = as_tensor(x)
    return _apply("SQUEEZE", [x], {"squeeze_dims": tuple(_axis(a, x.rank) for a in axes)}, name=name)


def _expand_infer(attrs, specs):
    shape, dtype = specs[0]
    axis = _axis(attrs["axis"], len(shape) + 1)
    return [(shape[:axis] + (1,) + shape[axis:], dtype)]


register(OpDef("EXPAND_DIMS", attrs={"axis": REQUIRED}, infer=_expand_infer,
               numpy=lambda a, x: np.expand_dims(x, a["axis"]),
               jax=lambda a, x: _jnp().expand_dims(x, a["axis"]),
               tflite=_tfl("EXPAND_DIMS", "ExpandDimsOptions", attr_inputs=["axis"])))


def expand_dims(x, axis: int, name: str | None = None) -> Tensor:
    """EXPAND_DIMS: x with a new size-1 axis at `axis` (negative counts from the end of the result)."""
    x = as_tensor(x)
    return _apply("EXPAND_DIMS", [x], {"axis": _axis(axis, x.rank + 1)}, name=name)


def _transpose_infer(attrs, specs):
    shape, dtype = specs[0]
    perm = attrs["perm"]
    if sorted(perm) != list(range(len(shape))):
        raise ValueError(f"perm {perm} is not a permutation of rank {len(shape)}")
    return [(tuple(shape[p] for p in perm), dtype)]


register(OpDef("TRANSPOSE", attrs={"perm": REQUIRED}, infer=_transpose_infer,
               numpy=lambda a, x: np.transpose(x, a["perm"]), jax=lambda a, x: _jnp().transpose(x, a["perm"]),
               tflite=_tfl("TRANSPOSE", "TransposeOptions", attr_inputs=["perm"])))


def transpose(x, perm: Sequence[int], name: str | None = None) -> Tensor:
    """TRANSPOSE: x's axes reordered: axis i of the result is axis `perm[i]` of x."""
    return _apply("TRANSPOSE", [as_tensor(x)], {"perm": tuple(int(p) for p in perm)}, name=name)


def strided_slice_index(attrs: dict, rank: int) -> tuple:
    """The python index (slices and integers) that a STRIDED_SLICE node's attrs describe."""
    index = []
    for a in range(rank):
        if attrs["shrink_axis_mask"] >> a & 1:
            index.append(attrs["begin"][a])
            continue
        b = None if attrs["begin_mask"] >> a & 1 else attrs["begin"][a]
        e = None if attrs["end_mask"] >> a & 1 else attrs["end"][a]
        index.append(slice(b, e, attrs["strides"][a]))
    return tuple(index)


def _strided_slice_infer(attrs, specs):
    shape, dtype = specs[0]
    if not len(attrs["begin"]) == len(attrs["end"]) == len(attrs["strides"]) == len(shape):
        raise ValueError(f"begin/end/strides must each have {len(shape)} entries")
    out = []
    for dim, idx in zip(shape, strided_slice_index(attrs, len(shape))):
        if isinstance(idx, int):
            continue
        if dim is not None:
            out.append(len(range(dim)[idx]))
        elif idx == slice(None, None, 1):
            out.append(None)
        elif idx.step > 0 and idx.start is not None and idx.stop is not None and 0 <= idx.start <= idx.stop:
            out.append(len(range(idx.stop)[idx.start::idx.step]))
        else:
            out.append(None)
    return [(tuple(out), dtype)]


register(OpDef("STRIDED_SLICE",
               attrs={"begin": REQUIRED, "end": REQUIRED, "strides": REQUIRED, "begin_mask": 0, "end_mask": 0,
                      "shrink_axis_mask": 0},
               infer=_strided_slice_infer,
               numpy=lambda a, x: x[strided_slice_index(a, x.ndim)],
               jax=lambda a, x: x[strided_slice_index(a, x.ndim)],
               tflite=_tfl("STRIDED_SLICE", "StridedSliceOptions",
                           {"begin_mask": "begin_mask", "end_mask": "end_mask",
                            "shrink_axis_mask": "shrink_axis_mask"}, ["begin", "end", "strides"])))


def strided_slice(x, begin, end, strides=None, begin_mask: int = 0, end_mask: int = 0,
                  shrink_axis_mask: int = 0, name: str | None = None) -> Tensor:
    """STRIDED_SLICE: x[begin:end:strides] per axis, with TFLite's masks: bit i of `begin_mask` / `end_mask`
    ignores begin[i] / end[i] (the whole axis), bit i of `shrink_axis_mask` takes element begin[i] and drops
    the axis. `strides` defaults to 1 on every axis."""
    x = as_tensor(x)
    strides = tuple(strides) if strides is not None else (1,) * x.rank
    attrs = {"begin": tuple(int(b) for b in begin), "end": tuple(int(e) for e in end),
             "strides": tuple(int(s) for s in strides), "begin_mask": begin_mask, "end_mask": end_mask,
             "shrink_axis_mask": shrink_axis_mask}
    return _apply("STRIDED_SLICE", [x], attrs, name=name)


def _slice_index(attrs, shape):
    return tuple(slice(b, None if s == -1 else b + s) for b, s in zip(attrs["begin"], attrs["size"]))


def _slice_infer(attrs, specs):
    shape, dtype = specs[0]
    if not len(attrs["begin"]) == len(attrs["size"]) == len(shape):
        raise ValueError(f"begin/size must each have {len(shape)} entries")
    out = []
    for d, b, s in zip(shape, attrs["begin"], attrs["size"]):
        if s == -1:
            out.append(None if d is None else d - b)
        else:
            if d is not None and b + s > d:
                raise ValueError(f"slice [{b}, {b + s}) exceeds dimension {d}")
            out.append(s)
    return [(tuple(out), dtype)]


register(OpDef("SLICE", attrs={"begin": REQUIRED, "size": REQUIRED}, infer=_slice_infer,
               numpy=lambda a, x: x[_slice_index(a, x.shape)], jax=lambda a, x: x[_slice_index(a, x.shape)],
               tflite=_tfl("SLICE", "SliceOptions", attr_inputs=["begin", "size"], notes="size -1: to the end")))


def slice_(x, begin: Sequence[int], size: Sequence[int], name: str | None = None) -> Tensor:
    """SLICE: the block of x starting at `begin` with `size` per axis (-1: to the end of the axis)."""
    attrs = {"begin": tuple(int(b) for b in begin), "size": tuple(int(s) for s in size)}
    return _apply("SLICE", [as_tensor(x)], attrs, name=name)


register(OpDef("SHAPE", attrs={"out_type": "int32"}, infer=lambda a, s: [((len(s[0][0]),), a["out_type"])],
               numpy=lambda a, x: np.array(x.shape, dtype=a["out_type"]),
               jax=lambda a, x: np.array(x.shape, dtype=a["out_type"]),  # static under jit
               tflite=_tfl("SHAPE", "ShapeOptions", {"out_type": "out_type"})))


def shape(x, out_type: Any = "int32", name: str | None = None) -> Tensor:
    """SHAPE: x's shape at run time as a 1-D tensor of `out_type` (int32 or int64); dynamic dimensions are
    filled in by the feed."""
    return _apply("SHAPE", [as_tensor(x)], {"out_type": canonical_dtype(out_type)}, name=name)


def _pack_infer(attrs, specs):
    rank, dtype = len(specs[0][0]), specs[0][1]
    if any(len(s) != rank or d != dtype for s, d in specs):
        raise ValueError(f"inputs differ in rank or dtype: {specs}")
    shape = []
    for i in range(rank):
        dims = {s[i] for s, _ in specs} - {None}
        if len(dims) > 1:
            raise ValueError(f"inputs differ in dimension {i}: {[s for s, _ in specs]}")
        shape.append(dims.pop() if dims else None)
    axis = _axis(attrs["axis"], rank + 1)
    return [(tuple(shape[:axis]) + (len(specs),) + tuple(shape[axis:]), dtype)]


register(OpDef("PACK", attrs={"axis": 0}, infer=_pack_infer,
               numpy=lambda a, *xs: np.stack(xs, axis=a["axis"]),
               jax=lambda a, *xs: _jnp().stack(xs, axis=a["axis"]),
               tflite=_tfl("PACK", "PackOptions", {"axis": "axis"}, notes="values_count = number of inputs")))


def pack(values: Sequence, axis: int = 0, name: str | None = None) -> Tensor:
    """PACK: `values` (of one shape and dtype) stacked along a new axis `axis`. ValueError when their shapes
    or dtypes differ."""
    values = _operands(*values)
    return _apply("PACK", values, {"axis": _axis(axis, values[0].rank + 1)}, name=name)


def _depth_space_np(a, x, to_space):
    n, h, w, c = x.shape
    b = a["block_size"]
    if to_space:  # [n, h, w, b*b*c'] -> [n, h*b, w*b, c'], the channel block read as (row, column, channel)
        return x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, -1)
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, -1)


def _depth_space_infer(attrs, specs, to_space):
    (n, h, w, c), dtype = specs[0]
    b = attrs["block_size"]
    if to_space:
        if c is None or c % (b * b):
            raise ValueError(f"{c} channels are not a multiple of {b * b}")
        return [((n, None if h is None else h * b, None if w is None else w * b, c // (b * b)), dtype)]
    if None in (h, w, c) or h % b or w % b:
        raise ValueError(f"height {h} and width {w} must be known multiples of {b}")
    return [((n, h // b, w // b, c * b * b), dtype)]


for _name, _to_space, _options in (("DEPTH_TO_SPACE", True, "DepthToSpaceOptions"),
                                   ("SPACE_TO_DEPTH", False, "SpaceToDepthOptions")):
    register(OpDef(_name, attrs={"block_size": REQUIRED},
                   infer=lambda a, s, t=_to_space: _depth_space_infer(a, s, t),
                   numpy=lambda a, x, t=_to_space: _depth_space_np(a, x, t),
                   jax=lambda a, x, t=_to_space: _depth_space_np(a, x, t),  # reshapes and a transpose: jnp too
                   tflite=_tfl(_name, _options, {"block_size": "block_size"})))


def depth_to_space(x, block_size: int, name: str | None = None) -> Tensor:
    """DEPTH_TO_SPACE: an NHWC x's channels moved into `block_size` x `block_size` spatial blocks (channels
    must divide by block_size^2)."""
    return _apply("DEPTH_TO_SPACE", [as_tensor(x)], {"block_size": int(block_size)}, name=name)


def space_to_depth(x, block_size: int, name: str | None = None) -> Tensor:
    """SPACE_TO_DEPTH: each `block_size` x `block_size` spatial block of an NHWC x moved into channels
    (height and width must divide by block_size)."""
    return _apply("SPACE_TO_DEPTH", [as_tensor(x)], {"block_size": int(block_size)}, name=name)


# ----------------------------------------------------------------------------------------- shapes


def _grad_depth_to_space(node, dys):
    return [ops.space_to_depth(dys[0], node.attrs["block_size"])]


def _grad_space_to_depth(node, dys):
    return [ops.depth_to_space(dys[0], node.attrs["block_size"])]


def _grad_reshape(node, dys):
    return [ops.reshape(dys[0], grad._dims(node.inputs[0].shape))] + [None] * (len(node.inputs) - 1)


def _grad_identity(node, dys):
    return [dys[0]]


def _grad_transpose(node, dys):
    inverse = np.argsort(node.attrs["perm"])
    return [ops.transpose(dys[0], inverse)]


def _grad_concat(node, dys):
    axis = node.attrs["axis"]
    grads, offset = [], 0
    for x in node.inputs:
        n = x.shape[axis]
        if n is None:
            raise ValueError(f'gradient of CONCATENATION "{node.name}": dynamic size along the axis')
        begin = [0] * x.rank
        size = [-1] * x.rank
        begin[axis], size[axis] = offset, n
        grads.append(ops.slice_(dys[0], begin, size))
        offset += n
    return grads


def _grad_slice(node, dys):
    x = node.inputs[0]
    y = node.outputs[0]
    pads = []
    for d, b, s in zip(x.shape, node.attrs["begin"], y.shape):
        if d is None:
            if b != 0 or s is not None:
                raise ValueError(f'gradient of SLICE "{node.name}": slicing a dynamic dimension')
            pads.append((0, 0))
        else:
            pads.append((b, d - b - s))
    return [ops.pad(dys[0], pads)]


def _grad_strided_slice(node, dys):
    x, a = node.inputs[0], node.attrs
    g = dys[0]
    index = ops.strided_slice_index(a, x.rank)
    for axis, idx in enumerate(index):
        if isinstance(idx, int):
            g = ops.expand_dims(g, axis)
    pads = []
    for axis, (d, idx) in enumerate(zip(x.shape, index)):
        if d is None:
            if idx != slice(None, None, 1):
                raise ValueError(f'gradient of STRIDED_SLICE "{node.name}": slicing a dynamic dimension')
            pads.append((0, 0))
            continue
        if isinstance(idx, int):
            start, step, count = idx % d, 1, 1
        else:
            start, stop, step = idx.indices(d)
            count = len(range(start, stop, step))
            if step < 0:
                raise ValueError(f'gradient of STRIDED_SLICE "{node.name}": negative strides')
        if count == 0:
            return [ops.zeros_like(x)]
        g = ops.zero_insert(g, axis, step)
        span = (count - 1) * step + 1
        pads.append((start, d - start - span))
    return [ops.pad(g, pads)]


def _grad_pack(node, dys):
    axis = node.attrs["axis"]
    out = node.outputs[0]
    grads = []
    for k in range(len(node.inputs)):
        begin = [0] * out.rank
        end = [0] * out.rank
        begin[axis], end[axis] = k, k + 1
        mask = ((1 << out.rank) - 1) & ~(1 << axis)
        grads.append(ops.strided_slice(dys[0], begin, end, begin_mask=mask, end_mask=mask,
                                   shrink_axis_mask=1 << axis))
    return grads


GRADIENTS = {
    "IDENTITY": _grad_identity,
    "RESHAPE": _grad_reshape,
    "SQUEEZE": _grad_reshape,
    "EXPAND_DIMS": _grad_reshape,
    "TRANSPOSE": _grad_transpose,
    "DEPTH_TO_SPACE": _grad_depth_to_space,
    "SPACE_TO_DEPTH": _grad_space_to_depth,
    "CONCATENATION": _grad_concat,
    "SLICE": _grad_slice,
    "STRIDED_SLICE": _grad_strided_slice,
    "PACK": _grad_pack,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
