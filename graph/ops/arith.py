"""The rest of the runtime's element-wise arithmetic: ABS, CEIL, FLOOR, ROUND, ELU, RELU_N1_TO_1, POW,
FLOOR_DIV and FLOOR_MOD. CEIL, FLOOR, ROUND and FLOOR_DIV are steps (zero derivative almost everywhere), so no
gradient flows through them, as in TensorFlow.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import OpDef, register
from . import _grad as grad
from .core import _apply, _float_same, _jnp, _operands, _same_as_first, _tfl, as_tensor
from .elementwise import _binary_infer


def _is_float(x: np.ndarray) -> bool:
    return np.issubdtype(x.dtype, np.floating)


def _elu_np(a, x):
    with np.errstate(over="ignore"):
        return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def _round_np(a, x):
    return np.round(x)  # half to even, as TFLite's ROUND


_UNARY = {
    # name: (numpy, jax, shape rule, options table)
    "ABS": (lambda a, x: np.abs(x), lambda a, x: _jnp().abs(x), _same_as_first, "AbsOptions"),
    "CEIL": (lambda a, x: np.ceil(x), lambda a, x: _jnp().ceil(x), _float_same, None),
    "FLOOR": (lambda a, x: np.floor(x), lambda a, x: _jnp().floor(x), _float_same, None),
    "ROUND": (_round_np, lambda a, x: _jnp().round(x), _float_same, None),
    "ELU": (_elu_np, lambda a, x: __import__("jax").nn.elu(x), _float_same, None),
    "RELU_N1_TO_1": (lambda a, x: np.clip(x, -1, 1), lambda a, x: _jnp().clip(x, -1, 1), _float_same, None),
}
for _name, (_np_fn, _jax_fn, _infer, _options) in _UNARY.items():
    register(OpDef(_name, infer=_infer, numpy=_np_fn, jax=_jax_fn, tflite=_tfl(_name, _options)))


def _unary(op: str, x, name: str | None) -> Tensor:
    return _apply(op, [as_tensor(x)], name=name)


def abs_(x, name: str | None = None) -> Tensor:
    """ABS: |x|, element-wise (float or integer)."""
    return _unary("ABS", x, name)


def ceil(x, name: str | None = None) -> Tensor:
    """CEIL: the smallest integer value not below x, element-wise (float)."""
    return _unary("CEIL", x, name)


def floor(x, name: str | None = None) -> Tensor:
    """FLOOR: the largest integer value not above x, element-wise (float)."""
    return _unary("FLOOR", x, name)


def round_(x, name: str | None = None) -> Tensor:
    """ROUND: x rounded to the nearest integer value, halves to even (TFLite's ROUND), element-wise."""
    return _unary("ROUND", x, name)


def elu(x, name: str | None = None) -> Tensor:
    """ELU: x where x > 0, else exp(x) - 1."""
    return _unary("ELU", x, name)


def relu_n1_to_1(x, name: str | None = None) -> Tensor:
    """RELU_N1_TO_1: x clipped to [-1, 1]."""
    return _unary("RELU_N1_TO_1", x, name)


def _pow_np(a, x, y):
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(x, y)


def _floor_div_np(a, x, y):
    if _is_float(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.floor(x / y)  # TFLite's float FLOOR_DIV: floor of the quotient
    return np.floor_divide(x, y)


def _floor_div_jax(a, x, y):
    jnp = _jnp()
    return jnp.floor(x / y) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.floor_divide(x, y)


def _floor_mod_np(a, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mod(x, y)  # the divisor's sign, as TFLite's FLOOR_MOD


_BINARY = {
    "POW": (_pow_np, lambda a, x, y: x ** y, "PowOptions"),
    "FLOOR_DIV": (_floor_div_np, _floor_div_jax, "FloorDivOptions"),
    "FLOOR_MOD": (_floor_mod_np, lambda a, x, y: _jnp().mod(x, y), "FloorModOptions"),
}
for _name, (_np_fn, _jax_fn, _options) in _BINARY.items():
    register(OpDef(_name, infer=_binary_infer, numpy=_np_fn, jax=_jax_fn, tflite=_tfl(_name, _options)))


def pow_(a, b, name: str | None = None) -> Tensor:
    """POW: a ** b, element-wise, broadcast as numpy's; values take the tensor's dtype."""
    return _apply("POW", _operands(a, b), name=name)


def floor_div(a, b, name: str | None = None) -> Tensor:
    """FLOOR_DIV: floor(a / b), element-wise (integers: Python's //)."""
    return _apply("FLOOR_DIV", _operands(a, b), name=name)


def floor_mod(a, b, name: str | None = None) -> Tensor:
    """FLOOR_MOD: a - floor(a / b) * b, element-wise: the remainder with the divisor's sign (Python's %)."""
    return _apply("FLOOR_MOD", _operands(a, b), name=name)


def _sign(x: Tensor) -> Tensor:
    return ops.sub(grad._float_mask(ops.greater(x, 0.0), x), grad._float_mask(ops.greater(0.0, x), x))


def _grad_abs(node, dys):
    x = node.inputs[0]
    if not np.issubdtype(np.dtype(x.dtype), np.floating):
        return [None]
    return [ops.mul(dys[0], _sign(x))]


def _grad_elu(node, dys):
    x, y = node.inputs[0], node.outputs[0]
    positive = grad._float_mask(ops.greater(x, 0.0), x)
    # y' = 1 where x > 0, else exp(x) = y + 1
    return [ops.mul(dys[0], ops.add(positive, ops.mul(ops.sub(1.0, positive), ops.add(y, 1.0))))]


def _grad_relu_n1_to_1(node, dys):
    x = node.inputs[0]
    inside = ops.mul(grad._float_mask(ops.greater(x, -1.0), x), grad._float_mask(ops.greater(1.0, x), x))
    return [ops.mul(dys[0], inside)]


def _grad_pow(node, dys):
    x, y = node.inputs
    z, dz = node.outputs[0], dys[0]
    dx = ops.mul(ops.mul(dz, y), pow_(x, ops.sub(y, 1.0)))
    # d/dy x^y = x^y log x, taken as 0 where x <= 0 (TensorFlow's choice: log is undefined there)
    positive = ops.greater(x, 0.0)
    safe_log = ops.log(ops.select(positive, x, ops.add(ops.zeros_like(x), 1.0)))
    dy = ops.mul(dz, ops.mul(z, safe_log))
    return [grad.unbroadcast(dx, x), grad.unbroadcast(dy, y)]


def _grad_floor_mod(node, dys):
    x, y = node.inputs
    return [grad.unbroadcast(dys[0], x), grad.unbroadcast(ops.neg(ops.mul(dys[0], floor_div(x, y))), y)]


GRADIENTS = {
    "ABS": _grad_abs,
    "ELU": _grad_elu,
    "RELU_N1_TO_1": _grad_relu_n1_to_1,
    "POW": _grad_pow,
    "FLOOR_MOD": _grad_floor_mod,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
