"""Activations with a learned parameter or a non-elementary derivative: PRELU (a per-channel slope that
trains) and GELU (exact erf form, or the tanh approximation). The plain ones (RELU, TANH, HARD_SWISH, ...)
are in elementwise.py's unary table."""

from __future__ import annotations

import math

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import OpDef, register
from . import _grad as grad
from .core import _apply, _float_same, _jnp, _operands, _tfl, as_tensor, broadcast_shapes


def _prelu_infer(attrs, specs):
    (sx, dx), (sa, da) = specs
    if dx != da:
        raise ValueError(f"input is {dx}, alpha is {da}")
    out = broadcast_shapes(sx, sa)
    if len(out) != len(sx) or any(o != s for o, s in zip(out, sx) if s is not None):
        raise ValueError(f"alpha of shape {sa} does not broadcast to the input's {sx}")
    return [(sx, dx)]


register(OpDef("PRELU", infer=_prelu_infer, numpy=lambda a, x, alpha: np.where(x >= 0, x, x * alpha),
               jax=lambda a, x, alpha: _jnp().where(x >= 0, x, x * alpha), tflite=_tfl("PRELU")))


def prelu(x, alpha, name: str | None = None) -> Tensor:
    """x where x >= 0, else alpha * x; alpha (a Variable, usually [1, 1, C]) broadcasts to x."""
    return _apply("PRELU", _operands(x, alpha), name=name)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_erf = np.vectorize(math.erf, otypes=[np.float64])


def _gelu_np(a, x):
    if a["approximate"]:
        inner = _SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)
        return (0.5 * x * (1.0 + np.tanh(inner))).astype(x.dtype)
    return (0.5 * x * (1.0 + _erf(x.astype(np.float64) / math.sqrt(2.0)))).astype(x.dtype)


register(OpDef("GELU", attrs={"approximate": False}, infer=_float_same, numpy=_gelu_np,
               jax=lambda a, x: __import__("jax").nn.gelu(x, approximate=a["approximate"]),
               tflite=_tfl("GELU", "GeluOptions", {"approximate": "approximate"})))


def gelu(x, approximate: bool = False, name: str | None = None) -> Tensor:
    """GELU: x * Phi(x), Phi the standard normal CDF (erf form), or its tanh approximation with
    `approximate`."""
    return _apply("GELU", [as_tensor(x)], {"approximate": bool(approximate)}, name=name)


def _grad_prelu(node, dys):
    x, alpha = node.inputs
    negative = ops.sub(1.0, grad._float_mask(ops.greater_equal(x, 0.0), x))
    dx = ops.mul(dys[0], ops.add(ops.sub(1.0, negative), ops.mul(negative, alpha)))
    return [dx, grad.unbroadcast(ops.mul(dys[0], ops.mul(x, negative)), alpha)]


def _grad_gelu(node, dys):
    # GELU' = Phi(x) + x phi(x). The exact form needs Phi = (1 + erf(x / sqrt 2)) / 2, which no builtin
    # computes; GELU itself gives it: gelu(x) + gelu(-x) = x erf(x / sqrt 2), so
    # Phi(x) = 1/2 + (gelu(x) + gelu(-x)) / 2x, exact to float rounding (an absolute error near eps/2 at any
    # x), with x = 0 (where the sum is 0) divided by 1 instead.
    x = node.inputs[0]
    dy = dys[0]
    if node.attrs["approximate"]:
        # y = x/2 (1 + tanh u), u = c (x + k x^3): y' = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3k x^2)
        t = ops.tanh(ops.mul(ops.add(x, ops.mul(ops.mul(ops.mul(x, x), x), 0.044715)), _SQRT_2_OVER_PI))
        du = ops.mul(ops.add(ops.mul(ops.mul(x, x), 3 * 0.044715), 1.0), _SQRT_2_OVER_PI)
        slope = ops.add(ops.mul(ops.add(t, 1.0), 0.5), ops.mul(ops.mul(ops.mul(x, 0.5), ops.sub(1.0, ops.mul(t, t))), du))
        return [ops.mul(dy, slope)]
    y = node.outputs[0]
    safe_x = ops.add(x, grad._float_mask(ops.equal(x, 0.0), x))
    phi_cdf = ops.add(ops.div(ops.add(y, gelu(ops.neg(x))), ops.mul(safe_x, 2.0)), 0.5)
    density = ops.mul(ops.exp(ops.mul(ops.mul(x, x), -0.5)), 1.0 / math.sqrt(2.0 * math.pi))
    return [ops.mul(dy, ops.add(phi_cdf, ops.mul(x, density)))]


GRADIENTS = {
    "PRELU": _grad_prelu,
    "GELU": _grad_gelu,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
