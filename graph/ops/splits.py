"""Splits: SPLIT (equal parts), SPLIT_V (parts of given sizes) and UNPACK (every slice along an axis), whose
gradients join dy back together (a CONCATENATION or a PACK).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _axis, _jnp, _tfl, as_tensor


def _split_infer(attrs, specs):
    shape, dtype = specs[0]
    axis = _axis(attrs["axis"], len(shape))
    n, d = attrs["num_splits"], shape[axis]
    if d is not None and (n <= 0 or d % n):
        raise ValueError(f"dimension {axis} of size {d} does not split into {n} equal parts")
    part = None if d is None else d // n
    return [(shape[:axis] + (part,) + shape[axis + 1:], dtype)] * n


register(OpDef("SPLIT", attrs={"axis": REQUIRED, "num_splits": REQUIRED}, infer=_split_infer,
               numpy=lambda a, x: tuple(np.split(x, a["num_splits"], axis=a["axis"])),
               jax=lambda a, x: tuple(_jnp().split(x, a["num_splits"], axis=a["axis"])),
               tflite=_tfl("SPLIT", "SplitOptions", {"num_splits": "num_splits"}, ["axis"], order=["axis", 0],
                           notes="inputs (axis, x): the axis first")))


def split(x, num_splits: int, axis: int = 0, name: str | None = None) -> list[Tensor]:
    """SPLIT: x cut into `num_splits` equal parts along `axis` (its size must divide), as a list."""
    x = as_tensor(x)
    out = _apply("SPLIT", [x], {"axis": _axis(axis, x.rank), "num_splits": int(num_splits)}, name=name)
    return out if isinstance(out, list) else [out]


def _split_v_sizes(attrs, d):
    sizes = list(attrs["size_splits"])
    if sizes.count(-1) == 1 and d is not None:
        sizes[sizes.index(-1)] = d - sum(s for s in sizes if s != -1)
    return sizes


def _split_v_infer(attrs, specs):
    shape, dtype = specs[0]
    axis = _axis(attrs["axis"], len(shape))
    sizes = _split_v_sizes(attrs, shape[axis])
    if len(sizes) != attrs["num_splits"]:
        raise ValueError(f"{len(sizes)} sizes for num_splits {attrs['num_splits']}")
    if shape[axis] is not None and (sum(sizes) != shape[axis] or min(sizes) < 0):
        raise ValueError(f"sizes {list(attrs['size_splits'])} do not split dimension {axis} of size {shape[axis]}")
    return [(shape[:axis] + (s,) + shape[axis + 1:], dtype) for s in sizes]


def _split_v(xp, a, x):
    axis = a["axis"] % x.ndim
    return tuple(xp.split(x, np.cumsum(_split_v_sizes(a, x.shape[axis]))[:-1].tolist(), axis=axis))


register(OpDef("SPLIT_V", attrs={"size_splits": REQUIRED, "axis": REQUIRED, "num_splits": REQUIRED},
               infer=_split_v_infer, numpy=lambda a, x: _split_v(np, a, x),
               jax=lambda a, x: _split_v(_jnp(), a, x),
               tflite=_tfl("SPLIT_V", "SplitVOptions", {"num_splits": "num_splits"}, ["size_splits", "axis"],
                           notes="one size may be -1: the rest")))


def split_v(x, sizes: Sequence[int], axis: int = 0, name: str | None = None) -> list[Tensor]:
    """SPLIT_V: x cut along `axis` into parts of `sizes` (one may be -1: what is left), as a list."""
    x = as_tensor(x)
    sizes = tuple(int(s) for s in sizes)
    out = _apply("SPLIT_V", [x], {"size_splits": sizes, "axis": _axis(axis, x.rank), "num_splits": len(sizes)},
                 name=name)
    return out if isinstance(out, list) else [out]


def _unpack_infer(attrs, specs):
    shape, dtype = specs[0]
    axis = _axis(attrs["axis"], len(shape))
    if shape[axis] is not None and shape[axis] != attrs["num"]:
        raise ValueError(f"dimension {axis} has size {shape[axis]}, not num {attrs['num']}")
    return [(shape[:axis] + shape[axis + 1:], dtype)] * attrs["num"]


def _unpack(xp, a, x):
    axis = a["axis"] % x.ndim
    return tuple(xp.moveaxis(x, axis, 0)[i] for i in range(a["num"]))


register(OpDef("UNPACK", attrs={"num": REQUIRED, "axis": 0}, infer=_unpack_infer,
               numpy=lambda a, x: _unpack(np, a, x), jax=lambda a, x: _unpack(_jnp(), a, x),
               tflite=_tfl("UNPACK", "UnpackOptions", {"num": "num", "axis": "axis"})))


def unpack(x, axis: int = 0, num: int | None = None, name: str | None = None) -> list[Tensor]:
    """UNPACK: the slices of x along `axis` (which must have a static size, or give `num`), as a list: PACK's
    inverse."""
    x = as_tensor(x)
    axis = _axis(axis, x.rank)
    num = x.shape[axis] if num is None else int(num)
    if num is None:
        raise ValueError(f'unpack "{name or "unpack"}": axis {axis} has a dynamic size; give num')
    out = _apply("UNPACK", [x], {"num": num, "axis": axis}, name=name)
    return out if isinstance(out, list) else [out]


def _grad_split(node, dys):
    return [ops.concat(dys, node.attrs["axis"] % node.inputs[0].rank)]


def _grad_unpack(node, dys):
    return [ops.pack(dys, node.attrs["axis"] % node.inputs[0].rank)]


GRADIENTS = {
    "SPLIT": _grad_split,
    "SPLIT_V": _grad_split,
    "UNPACK": _grad_unpack,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
