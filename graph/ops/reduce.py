"""Reductions over axes: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, and REDUCE_ALL / REDUCE_ANY (bool, no
gradient).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Node, Tensor
from ..registry import REQUIRED, OpDef, register
from . import _grad as grad
from .core import (
    _apply,
    _axis,
    _jnp,
    _tfl,
    as_tensor,
)


def _reducer(fn):
    def apply(attrs, x):
        return fn(x, axis=tuple(attrs["axes"]), keepdims=attrs["keepdims"])
    return apply


def _jax_reducer(name):
    def apply(attrs, x):
        return getattr(_jnp(), name)(x, axis=tuple(attrs["axes"]), keepdims=attrs["keepdims"])
    return apply


# ------------------------------------------------------------------------------------------ reductions


def _reduce_infer(attrs, specs):
    shape, dtype = specs[0]
    axes = sorted({_axis(a, len(shape)) for a in attrs["axes"]})
    if attrs["keepdims"]:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return [(out, dtype)]


for _name, _np_fn, _jax_name in (("MEAN", np.mean, "mean"), ("SUM", np.sum, "sum"), ("REDUCE_MAX", np.max, "max"),
                                 ("REDUCE_MIN", np.min, "min")):
    register(OpDef(_name, attrs={"axes": REQUIRED, "keepdims": False}, infer=_reduce_infer,
                   numpy=_reducer(_np_fn), jax=_jax_reducer(_jax_name),
                   tflite=_tfl(_name, "ReducerOptions", {"keepdims": "keep_dims"}, ["axes"])))


def _bool_reduce_infer(attrs, specs):
    if specs[0][1] != "bool":
        raise ValueError(f"expects a bool tensor, got {specs[0][1]}")
    return _reduce_infer(attrs, specs)


register(OpDef("REDUCE_PROD", attrs={"axes": REQUIRED, "keepdims": False}, infer=_reduce_infer,
               numpy=_reducer(np.prod), jax=_jax_reducer("prod"),
               tflite=_tfl("REDUCE_PROD", "ReducerOptions", {"keepdims": "keep_dims"}, ["axes"])))
for _name, _np_fn, _jax_name in (("REDUCE_ALL", np.all, "all"), ("REDUCE_ANY", np.any, "any")):
    register(OpDef(_name, attrs={"axes": REQUIRED, "keepdims": False}, infer=_bool_reduce_infer,
                   numpy=_reducer(_np_fn), jax=_jax_reducer(_jax_name),
                   tflite=_tfl(_name, "ReducerOptions", {"keepdims": "keep_dims"}, ["axes"])))


def _reduce(op, x, axes, keepdims, name):
    x = as_tensor(x)
    if axes is None:
        axes = range(x.rank)
    elif isinstance(axes, int):
        axes = [axes]
    axes = tuple(sorted({_axis(a, x.rank) for a in axes}))
    return _apply(op, [x], {"axes": axes, "keepdims": bool(keepdims)}, name=name)


def reduce_mean(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """MEAN: the mean of x over `axes` (an int or a sequence; None: every axis), keeping them as size 1 with
    `keepdims`. ValueError for an axis outside x's rank."""
    return _reduce("MEAN", x, axes, keepdims, name)


def reduce_sum(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """SUM: the sum of x over `axes` (an int or a sequence; None: every axis), keeping them as size 1 with
    `keepdims`. ValueError for an axis outside x's rank."""
    return _reduce("SUM", x, axes, keepdims, name)


# ------------------------------------------------------------------------------------- reductions


def reduce_max(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """REDUCE_MAX: the largest value of x over `axes` (an int or a sequence; None: every axis), keeping them
    as size 1 with `keepdims`. ValueError for an axis outside x's rank."""
    return _reduce("REDUCE_MAX", x, axes, keepdims, name)


def reduce_min(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """REDUCE_MIN: the smallest value of x over `axes` (an int or a sequence; None: every axis), keeping them
    as size 1 with `keepdims`. ValueError for an axis outside x's rank."""
    return _reduce("REDUCE_MIN", x, axes, keepdims, name)


def reduce_prod(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """REDUCE_PROD: the product of x over `axes` (an int or a sequence; None: every axis)."""
    return _reduce("REDUCE_PROD", x, axes, keepdims, name)


def reduce_all(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """REDUCE_ALL: whether every value of the bool x over `axes` is true."""
    return _reduce("REDUCE_ALL", x, axes, keepdims, name)


def reduce_any(x, axes=None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """REDUCE_ANY: whether any value of the bool x over `axes` is true."""
    return _reduce("REDUCE_ANY", x, axes, keepdims, name)


def _broadcast_back(g: Tensor, x: Tensor, axes: tuple) -> Tensor:
    """g with keepdims shape, broadcast to x's shape along `axes`."""
    reps = [x.shape[a] if a in axes else 1 for a in range(x.rank)]
    if None in reps:
        return ops.add(g, ops.zeros_like(x))
    if all(r == 1 for r in reps):
        return g
    return ops.mul(g, ops.constant(np.ones(reps, dtype=x.dtype), graph=x.graph))


def _count(x: Tensor, axes: tuple) -> Tensor:
    """The number of elements reduced over, as a float tensor (from SHAPE where it is dynamic)."""
    dims = [x.shape[a] for a in axes]
    if None not in dims:
        return grad._const_like(float(np.prod(dims)), x)
    size = ops.gather(ops.shape(x), np.array(axes, dtype=np.int32))
    return ops.reduce_sum(ops.cast(size, x.dtype), 0) if len(axes) == 1 else _product(ops.cast(size, x.dtype), len(axes))


def _product(v: Tensor, n: int) -> Tensor:
    out = ops.gather(v, np.array(0, dtype=np.int32))
    for i in range(1, n):
        out = ops.mul(out, ops.gather(v, np.array(i, dtype=np.int32)))
    return out


def _reduced_axes(node: Node) -> tuple:
    """The node's axes, each in [0, rank): an imported model gives -1 for the last."""
    rank = node.inputs[0].rank
    return tuple(sorted({a % rank for a in node.attrs["axes"]}))


def _keepdims(g: Tensor, x: Tensor, node: Node) -> Tensor:
    if node.attrs["keepdims"]:
        return g
    axes = _reduced_axes(node)
    keep = [1 if a in axes else d for a, d in enumerate(x.shape)]
    return ops.reshape(g, grad._dims(tuple(keep)))


def _grad_sum(node, dys):
    x = node.inputs[0]
    return [_broadcast_back(_keepdims(dys[0], x, node), x, _reduced_axes(node))]


def _grad_mean(node, dys):
    x = node.inputs[0]
    axes = _reduced_axes(node)
    g = ops.div(_keepdims(dys[0], x, node), _count(x, axes))
    return [_broadcast_back(g, x, axes)]


def _grad_extreme(node, dys):
    # dy shared equally by the elements that equal the extreme (TensorFlow's and JAX's rule at ties)
    x = node.inputs[0]
    axes = _reduced_axes(node)
    y = _keepdims(node.outputs[0], x, node)
    hits = ops.cast(ops.equal(x, y), x.dtype)
    share = ops.div(_keepdims(dys[0], x, node), ops.reduce_sum(hits, axes, keepdims=True))
    return [ops.mul(hits, share)]


def _grad_prod(node, dys):
    # d prod / d x_i = prod / x_i: exact where x has no zero (a product of probabilities or scales, what a
    # trained tail meets); a zero gives inf or nan there, not TensorFlow's cumulative-product answer
    x = node.inputs[0]
    g = ops.mul(_keepdims(dys[0], x, node), _keepdims(node.outputs[0], x, node))
    return [ops.div(_broadcast_back(g, x, _reduced_axes(node)), x)]


GRADIENTS = {
    "REDUCE_PROD": _grad_prod,
    "REDUCE_MAX": _grad_extreme,
    "REDUCE_MIN": _grad_extreme,
    "SUM": _grad_sum,
    "MEAN": _grad_mean,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
