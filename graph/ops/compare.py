"""Comparisons and selections: LESS, LESS_EQUAL, GREATER_EQUAL, EQUAL, NOT_EQUAL and the LOGICAL_ ops (bool
results, no gradient), MAXIMUM, MINIMUM, SELECT_V2 and SELECT, whose gradients route dy by a mask (to x where
x >= y for MAXIMUM, as TensorFlow does at ties).
GREATER stays with the arithmetic in elementwise.py, which the older rules build their masks from."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import OpDef, register
from . import _grad as grad
from .core import _apply, _jnp, _operands, _tfl, as_tensor, broadcast_shapes
from .elementwise import _binary_infer, _compare_infer

_COMPARE = {
    "LESS": (np.less, lambda x, y: x < y, "LessOptions"),
    "GREATER_EQUAL": (np.greater_equal, lambda x, y: x >= y, "GreaterEqualOptions"),
    "EQUAL": (np.equal, lambda x, y: x == y, "EqualOptions"),
    "LESS_EQUAL": (np.less_equal, lambda x, y: x <= y, "LessEqualOptions"),
    "NOT_EQUAL": (np.not_equal, lambda x, y: x != y, "NotEqualOptions"),
}
for _name, (_np_fn, _jax_fn, _options) in _COMPARE.items():
    register(OpDef(_name, infer=_compare_infer, numpy=lambda a, x, y, f=_np_fn: f(x, y),
                   jax=lambda a, x, y, f=_jax_fn: f(x, y), tflite=_tfl(_name, _options)))


def less(a, b, name: str | None = None) -> Tensor:
    """LESS: a < b, element-wise, as a bool tensor.
    `a` and `b` are tensors or Python / numpy values (a value takes the tensor's dtype); they broadcast
    as numpy's do."""
    return _apply("LESS", _operands(a, b), name=name)


def greater_equal(a, b, name: str | None = None) -> Tensor:
    """GREATER_EQUAL: a >= b, element-wise, as a bool tensor.
    `a` and `b` are tensors or Python / numpy values (a value takes the tensor's dtype); they broadcast
    as numpy's do."""
    return _apply("GREATER_EQUAL", _operands(a, b), name=name)


def equal(a, b, name: str | None = None) -> Tensor:
    """EQUAL: a == b, element-wise, as a bool tensor.
    `a` and `b` are tensors or Python / numpy values (a value takes the tensor's dtype); they broadcast
    as numpy's do."""
    return _apply("EQUAL", _operands(a, b), name=name)


def less_equal(a, b, name: str | None = None) -> Tensor:
    """LESS_EQUAL: a <= b, element-wise, as a bool tensor; a and b broadcast as numpy's do."""
    return _apply("LESS_EQUAL", _operands(a, b), name=name)


def not_equal(a, b, name: str | None = None) -> Tensor:
    """NOT_EQUAL: a != b, element-wise, as a bool tensor; a and b broadcast as numpy's do."""
    return _apply("NOT_EQUAL", _operands(a, b), name=name)


def _logical_infer(attrs, specs):
    if any(d != "bool" for _, d in specs):
        raise ValueError(f"expects bool operands, got {[d for _, d in specs]}")
    return [(specs[0][0] if len(specs) == 1 else broadcast_shapes(specs[0][0], specs[1][0]), "bool")]


register(OpDef("LOGICAL_AND", infer=_logical_infer, numpy=lambda a, x, y: np.logical_and(x, y),
               jax=lambda a, x, y: _jnp().logical_and(x, y), tflite=_tfl("LOGICAL_AND", "LogicalAndOptions")))
register(OpDef("LOGICAL_OR", infer=_logical_infer, numpy=lambda a, x, y: np.logical_or(x, y),
               jax=lambda a, x, y: _jnp().logical_or(x, y), tflite=_tfl("LOGICAL_OR", "LogicalOrOptions")))
register(OpDef("LOGICAL_NOT", infer=_logical_infer, numpy=lambda a, x: np.logical_not(x),
               jax=lambda a, x: _jnp().logical_not(x), tflite=_tfl("LOGICAL_NOT", "LogicalNotOptions")))


def logical_and(a, b, name: str | None = None) -> Tensor:
    """LOGICAL_AND of two bool tensors, broadcast as numpy's."""
    return _apply("LOGICAL_AND", _operands(a, b), name=name)


def logical_or(a, b, name: str | None = None) -> Tensor:
    """LOGICAL_OR of two bool tensors, broadcast as numpy's."""
    return _apply("LOGICAL_OR", _operands(a, b), name=name)


def logical_not(a, name: str | None = None) -> Tensor:
    """LOGICAL_NOT of a bool tensor."""
    return _apply("LOGICAL_NOT", [as_tensor(a)], name=name)


register(OpDef("MAXIMUM", infer=_binary_infer, numpy=lambda a, x, y: np.maximum(x, y),
               jax=lambda a, x, y: _jnp().maximum(x, y), tflite=_tfl("MAXIMUM")))
register(OpDef("MINIMUM", infer=_binary_infer, numpy=lambda a, x, y: np.minimum(x, y),
               jax=lambda a, x, y: _jnp().minimum(x, y), tflite=_tfl("MINIMUM")))


def maximum(a, b, name: str | None = None) -> Tensor:
    """MAXIMUM: the larger of a and b, element-wise.
    `a` and `b` are tensors or Python / numpy values (a value takes the tensor's dtype); they broadcast
    as numpy's do."""
    return _apply("MAXIMUM", _operands(a, b), name=name)


def minimum(a, b, name: str | None = None) -> Tensor:
    """MINIMUM: the smaller of a and b, element-wise.
    `a` and `b` are tensors or Python / numpy values (a value takes the tensor's dtype); they broadcast
    as numpy's do."""
    return _apply("MINIMUM", _operands(a, b), name=name)


def _select_infer(attrs, specs):
    (sc, dc), (sa, da), (sb, db) = specs
    if dc != "bool":
        raise ValueError(f"condition must be bool, got {dc}")
    if da != db:
        raise ValueError(f"operands have different dtypes {da} and {db}")
    return [(broadcast_shapes(broadcast_shapes(sc, sa), sb), da)]


register(OpDef("SELECT_V2", infer=_select_infer, numpy=lambda a, c, x, y: np.where(c, x, y),
               jax=lambda a, c, x, y: _jnp().where(c, x, y), tflite=_tfl("SELECT_V2")))


def select(condition, x, y, name: str | None = None) -> Tensor:
    """x where condition, else y, all three broadcast together (SELECT_V2)."""
    x, y = _operands(x, y)
    return _apply("SELECT_V2", [as_tensor(condition, dtype="bool", graph=x.graph), x, y], name=name)


def _select_v1_condition(c, x):
    """SELECT's condition as numpy broadcasts it: a rank-1 condition picks whole slices along x's first axis."""
    if c.ndim == 1 and x.ndim > 1:
        return c.reshape((-1,) + (1,) * (x.ndim - 1))
    return c


def _select_v1_infer(attrs, specs):
    (sc, dc), (sa, da), (sb, db) = specs
    if dc != "bool" or da != db:
        raise ValueError(f"condition must be bool and x, y of one dtype, got {dc}, {da}, {db}")
    if sa != sb:
        raise ValueError(f"x and y must have one shape (SELECT does not broadcast), got {sa} and {sb}")
    if sc != sa and not (len(sc) == 1 and len(sa) >= 1 and sc[0] in (sa[0], None)):
        raise ValueError(f"condition {sc} must have x's shape {sa} or be [{sa[0] if sa else ''}]")
    return [(sa, da)]


register(OpDef("SELECT", infer=_select_v1_infer,
               numpy=lambda a, c, x, y: np.where(_select_v1_condition(c, x), x, y),
               jax=lambda a, c, x, y: _jnp().where(_select_v1_condition(c, x), x, y),
               tflite=_tfl("SELECT", "SelectOptions")))


def select_v1(condition, x, y, name: str | None = None) -> Tensor:
    """SELECT (TensorFlow 1's): x where condition, else y; x and y of one shape, the condition of that shape or
    a vector over x's first axis. `select` (SELECT_V2) broadcasts all three."""
    x, y = _operands(x, y)
    return _apply("SELECT", [as_tensor(condition, dtype="bool", graph=x.graph), x, y], name=name)


def _grad_maximum(node, dys):
    x, y = node.inputs
    to_x = grad._float_mask(ops.greater_equal(x, y), x)
    return [grad.unbroadcast(ops.mul(dys[0], to_x), x), grad.unbroadcast(ops.mul(dys[0], ops.sub(1.0, to_x)), y)]


def _grad_minimum(node, dys):
    x, y = node.inputs
    to_x = grad._float_mask(ops.greater_equal(y, x), x)
    return [grad.unbroadcast(ops.mul(dys[0], to_x), x), grad.unbroadcast(ops.mul(dys[0], ops.sub(1.0, to_x)), y)]


def _grad_select(node, dys):
    c, x, y = node.inputs
    dy = dys[0]
    to_x = grad._float_mask(c, dy)
    return [None, grad.unbroadcast(ops.mul(dy, to_x), x), grad.unbroadcast(ops.mul(dy, ops.sub(1.0, to_x)), y)]


def _grad_select_v1(node, dys):
    c, x, y = node.inputs
    dy = dys[0]
    to_x = grad._float_mask(c, dy)
    if c.rank == 1 and x.rank > 1:
        to_x = ops.reshape(to_x, [-1] + [1] * (x.rank - 1))
    return [None, ops.mul(dy, to_x), ops.mul(dy, ops.sub(1.0, to_x))]


GRADIENTS = {
    "SELECT": _grad_select_v1,
    "MAXIMUM": _grad_maximum,
    "MINIMUM": _grad_minimum,
    "SELECT_V2": _grad_select,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
