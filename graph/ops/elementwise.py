"""Element-wise ops: arithmetic, comparisons, activations, softmax, cast.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..core import Tensor, canonical_dtype
from ..registry import REQUIRED, OpDef, register
from . import _grad as grad
from .core import (
    _apply,
    _float_same,
    _jnp,
    _lax,
    _operands,
    _tfl,
    as_tensor,
    broadcast_shapes,
)

# ---------------------------------------------------------------------------------------- elementwise


def _binary_infer(attrs, specs):
    (sa, da), (sb, db) = specs
    if da != db:
        raise ValueError(f"operands have different dtypes {da} and {db}")
    return [(broadcast_shapes(sa, sb), da)]


def _compare_infer(attrs, specs):
    return [(_binary_infer(attrs, specs)[0][0], "bool")]


def _ignore_attrs(fn):
    def apply(attrs, *xs):
        return fn(*xs)
    return apply


_BINARY = {
    "ADD": (np.add, lambda a, b: a + b, "AddOptions"),
    "SUB": (np.subtract, lambda a, b: a - b, "SubOptions"),
    "MUL": (np.multiply, lambda a, b: a * b, "MulOptions"),
    "DIV": (np.divide, lambda a, b: a / b, "DivOptions"),
    "SQUARED_DIFFERENCE": (lambda a, b: np.square(a - b), lambda a, b: (a - b) ** 2,
                           "SquaredDifferenceOptions"),
}
for _name, (_np_fn, _jax_fn, _options) in _BINARY.items():
    register(OpDef(_name, infer=_binary_infer,
                   numpy=_ignore_attrs(_np_fn), jax=_ignore_attrs(_jax_fn),
                   tflite=_tfl(_name, _options, notes="fused_activation_function NONE (the converter fuses)")))
register(OpDef("GREATER", infer=_compare_infer, numpy=lambda a, x, y: np.greater(x, y),
               jax=lambda a, x, y: x > y, tflite=_tfl("GREATER", "GreaterOptions")))


def add(a, b, name: str | None = None) -> Tensor:
    """ADD: a + b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("ADD", _operands(a, b), name=name)


def sub(a, b, name: str | None = None) -> Tensor:
    """SUB: a - b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("SUB", _operands(a, b), name=name)


def mul(a, b, name: str | None = None) -> Tensor:
    """MUL: a * b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("MUL", _operands(a, b), name=name)


def div(a, b, name: str | None = None) -> Tensor:
    """DIV: a / b, element-wise. `a` and `b` are tensors or Python / numpy values (a value takes the tensor's
    dtype); they broadcast as numpy's do."""
    return _apply("DIV", _operands(a, b), name=name)


def squared_difference(a, b, name: str | None = None) -> Tensor:
    """SQUARED_DIFFERENCE: (a - b)^2, element-wise. `a` and `b` are tensors or Python / numpy values (a value
    takes the tensor's dtype); they broadcast as numpy's do."""
    return _apply("SQUARED_DIFFERENCE", _operands(a, b), name=name)


def greater(a, b, name: str | None = None) -> Tensor:
    """GREATER: a > b, element-wise, as a bool tensor. `a` and `b` are tensors or Python / numpy values (a
    value takes the tensor's dtype); they broadcast as numpy's do."""
    return _apply("GREATER", _operands(a, b), name=name)


def _sigmoid_np(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _softmax_np(a, x):
    z = a["beta"] * x
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _log_softmax_np(a, x):
    z = x - x.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _rsqrt_np(a, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 / np.sqrt(x)


def _log_np(a, x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


_UNARY = {
    # name: (numpy, jax, attrs, tflite options, option_map)
    "RSQRT": (_rsqrt_np, lambda a, x: _lax().rsqrt(x), {}, None, None),
    "SQRT": (lambda a, x: np.sqrt(x), lambda a, x: _jnp().sqrt(x), {}, None, None),
    "EXP": (lambda a, x: np.exp(x), lambda a, x: _jnp().exp(x), {}, "ExpOptions", None),
    "LOG": (_log_np, lambda a, x: _jnp().log(x), {}, None, None),
    "NEG": (lambda a, x: -x, lambda a, x: -x, {}, "NegOptions", None),
    "SQUARE": (lambda a, x: np.square(x), lambda a, x: x * x, {}, "SquareOptions", None),
    "SIN": (lambda a, x: np.sin(x), lambda a, x: _jnp().sin(x), {}, None, None),
    "COS": (lambda a, x: np.cos(x), lambda a, x: _jnp().cos(x), {}, None, None),
    "RELU": (lambda a, x: np.maximum(x, 0), lambda a, x: _jnp().maximum(x, 0), {}, None, None),
    "RELU6": (lambda a, x: np.minimum(np.maximum(x, 0), 6), lambda a, x: _jnp().clip(x, 0, 6), {}, None, None),
    "LEAKY_RELU": (lambda a, x: np.where(x > 0, x, a["alpha"] * x),
                   lambda a, x: _jnp().where(x > 0, x, a["alpha"] * x), {"alpha": 0.2},
                   "LeakyReluOptions", {"alpha": "alpha"}),
    "LOGISTIC": (lambda a, x: _sigmoid_np(x), lambda a, x: 1 / (1 + _jnp().exp(-x)), {}, None, None),
    "TANH": (lambda a, x: np.tanh(x), lambda a, x: _jnp().tanh(x), {}, None, None),
    "HARD_SWISH": (lambda a, x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6,
                   lambda a, x: x * _jnp().clip(x + 3, 0, 6) / 6, {}, "HardSwishOptions", None),
    "SOFTMAX": (_softmax_np, lambda a, x: __import__("jax").nn.softmax(a["beta"] * x, axis=-1),
                {"beta": 1.0}, "SoftmaxOptions", {"beta": "beta"}),
    "LOG_SOFTMAX": (_log_softmax_np, lambda a, x: __import__("jax").nn.log_softmax(x, axis=-1), {},
                    "LogSoftmaxOptions", None),
}
for _name, (_np_fn, _jax_fn, _attrs, _options, _map) in _UNARY.items():
    register(OpDef(_name, infer=_float_same, numpy=_np_fn, jax=_jax_fn, attrs=_attrs,
                   tflite=_tfl(_name, _options, _map)))


def _unary_builder(op: str):
    def build(x, name: str | None = None, **attrs) -> Tensor:
        return _apply(op, [as_tensor(x)], attrs, name=name)
    build.__name__ = op.lower()
    build.__doc__ = f"The {op} op, elementwise."
    return build


rsqrt = _unary_builder("RSQRT")
exp = _unary_builder("EXP")
log = _unary_builder("LOG")
neg = _unary_builder("NEG")
square = _unary_builder("SQUARE")
sin = _unary_builder("SIN")
cos = _unary_builder("COS")
relu = _unary_builder("RELU")
relu6 = _unary_builder("RELU6")
leaky_relu = _unary_builder("LEAKY_RELU")
sigmoid = _unary_builder("LOGISTIC")
tanh = _unary_builder("TANH")
hard_swish = _unary_builder("HARD_SWISH")
softmax = _unary_builder("SOFTMAX")
log_softmax = _unary_builder("LOG_SOFTMAX")


sqrt = _unary_builder("SQRT")  # not 1 / RSQRT(x): XNNPACK's rsqrt of 0 is NaN, not inf


def _cast_np(a, x):
    return x.astype(a["to"])


register(OpDef("CAST", attrs={"to": REQUIRED}, infer=lambda a, s: [(s[0][0], a["to"])], numpy=_cast_np,
               jax=lambda a, x: x.astype(a["to"]),
               tflite=_tfl("CAST", "CastOptions", notes="in/out_data_type from the tensors' dtypes")))


def cast(x, dtype: Any, name: str | None = None) -> Tensor:
    """CAST: x converted to `dtype` (a numpy dtype or its name); x itself when it has that dtype already."""
    x = as_tensor(x)
    dtype = canonical_dtype(dtype)
    if x.dtype == dtype:
        return x
    return _apply("CAST", [x], {"to": dtype}, name=name)


# ------------------------------------------------------------------------------------- elementwise


def _grad_add(node, dys):
    a, b = node.inputs
    return [grad.unbroadcast(dys[0], a), grad.unbroadcast(dys[0], b)]


def _grad_sub(node, dys):
    a, b = node.inputs
    return [grad.unbroadcast(dys[0], a), grad.unbroadcast(ops.neg(dys[0]), b)]


def _grad_mul(node, dys):
    a, b = node.inputs
    return [grad.unbroadcast(ops.mul(dys[0], b), a), grad.unbroadcast(ops.mul(dys[0], a), b)]


def _grad_div(node, dys):
    a, b = node.inputs
    y = node.outputs[0]
    return [grad.unbroadcast(ops.div(dys[0], b), a), grad.unbroadcast(ops.neg(ops.div(ops.mul(dys[0], y), b)), b)]


def _grad_squared_difference(node, dys):
    a, b = node.inputs
    da = ops.mul(ops.mul(dys[0], 2.0), ops.sub(a, b))
    return [grad.unbroadcast(da, a), grad.unbroadcast(ops.neg(da), b)]


def _grad_rsqrt(node, dys):
    y = node.outputs[0]
    return [ops.mul(ops.mul(dys[0], -0.5), ops.mul(ops.mul(y, y), y))]


def _grad_sqrt(node, dys):
    return [ops.div(ops.mul(dys[0], 0.5), node.outputs[0])]


def _grad_exp(node, dys):
    return [ops.mul(dys[0], node.outputs[0])]


def _grad_log(node, dys):
    return [ops.div(dys[0], node.inputs[0])]


def _grad_neg(node, dys):
    return [ops.neg(dys[0])]


def _grad_square(node, dys):
    return [ops.mul(dys[0], ops.mul(node.inputs[0], 2.0))]


def _grad_sin(node, dys):
    return [ops.mul(dys[0], cos(node.inputs[0]))]


def _grad_cos(node, dys):
    return [ops.mul(dys[0], ops.neg(sin(node.inputs[0])))]


def _grad_relu(node, dys):
    x = node.inputs[0]
    return [ops.mul(dys[0], grad._float_mask(ops.greater(x, 0.0), x))]


def _grad_relu6(node, dys):
    x = node.inputs[0]
    inside = ops.mul(grad._float_mask(ops.greater(x, 0.0), x), grad._float_mask(ops.greater(6.0, x), x))
    return [ops.mul(dys[0], inside)]


def _grad_leaky_relu(node, dys):
    x, alpha = node.inputs[0], node.attrs["alpha"]
    slope = ops.add(ops.mul(grad._float_mask(ops.greater(x, 0.0), x), 1.0 - alpha), alpha)
    return [ops.mul(dys[0], slope)]


def _grad_logistic(node, dys):
    y = node.outputs[0]
    return [ops.mul(dys[0], ops.mul(y, ops.sub(1.0, y)))]


def _grad_tanh(node, dys):
    y = node.outputs[0]
    return [ops.mul(dys[0], ops.sub(1.0, ops.mul(y, y)))]


def _grad_hard_swish(node, dys):
    # y = x * relu6(x + 3) / 6  =>  y' = relu6(x + 3) / 6 + x / 6 on (-3, 3)
    x = node.inputs[0]
    inside = ops.mul(grad._float_mask(ops.greater(x, -3.0), x), grad._float_mask(ops.greater(3.0, x), x))
    slope = ops.add(ops.mul(ops.relu6(ops.add(x, 3.0)), 1.0 / 6.0), ops.mul(ops.mul(x, 1.0 / 6.0), inside))
    return [ops.mul(dys[0], slope)]


def _grad_softmax(node, dys):
    y, dy = node.outputs[0], dys[0]
    centered = ops.sub(dy, ops.reduce_sum(ops.mul(dy, y), -1, keepdims=True))
    return [ops.mul(ops.mul(y, centered), node.attrs["beta"])]


def _grad_log_softmax(node, dys):
    y, dy = node.outputs[0], dys[0]
    return [ops.sub(dy, ops.mul(ops.exp(y), ops.reduce_sum(dy, -1, keepdims=True)))]


def _grad_cast(node, dys):
    x = node.inputs[0]
    if not np.issubdtype(np.dtype(x.dtype), np.floating) or not np.issubdtype(np.dtype(node.attrs["to"]),
                                                                               np.floating):
        return [None]
    return [ops.cast(dys[0], x.dtype)]


GRADIENTS = {
    "ADD": _grad_add,
    "SUB": _grad_sub,
    "MUL": _grad_mul,
    "DIV": _grad_div,
    "SQUARED_DIFFERENCE": _grad_squared_difference,
    "RSQRT": _grad_rsqrt,
    "SQRT": _grad_sqrt,
    "EXP": _grad_exp,
    "LOG": _grad_log,
    "NEG": _grad_neg,
    "SQUARE": _grad_square,
    "SIN": _grad_sin,
    "COS": _grad_cos,
    "RELU": _grad_relu,
    "RELU6": _grad_relu6,
    "LEAKY_RELU": _grad_leaky_relu,
    "LOGISTIC": _grad_logistic,
    "TANH": _grad_tanh,
    "HARD_SWISH": _grad_hard_swish,
    "SOFTMAX": _grad_softmax,
    "LOG_SOFTMAX": _grad_log_softmax,
    "CAST": _grad_cast,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
