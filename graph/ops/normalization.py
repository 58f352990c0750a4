"""Normalizations over the last axis: L2_NORMALIZATION (each row over its length) and
LOCAL_RESPONSE_NORMALIZATION (each channel over the squares of its `radius` neighbours), as TFLite computes them,
with their gradients (the neighbour sums written as a matmul with a band matrix).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _float_same, _jnp, _tfl, as_tensor

L2_EPSILON = 1e-6
"""TFLite's floor on a row's length: a row shorter than this is divided by it instead."""


def _l2_normalize(xp, a, x):
    norm = xp.sqrt(xp.sum(x * x, axis=-1, keepdims=True))
    return x / xp.maximum(norm, L2_EPSILON)


register(OpDef("L2_NORMALIZATION", infer=_float_same, numpy=lambda a, x: _l2_normalize(np, a, x),
               jax=lambda a, x: _l2_normalize(_jnp(), a, x),
               tflite=_tfl("L2_NORMALIZATION", "L2NormOptions", notes="fused_activation_function NONE")))


def l2_normalize(x, name: str | None = None) -> Tensor:
    """L2_NORMALIZATION: each row of x (its last axis) divided by its length (at least 1e-6, TFLite's floor)."""
    return _apply("L2_NORMALIZATION", [as_tensor(x)], name=name)


def band_matrix(depth: int, radius: int) -> np.ndarray:
    """[depth, depth]: 1 where two channels are within `radius` of each other, the neighbourhood LRN sums over."""
    i = np.arange(depth)
    return (np.abs(i[:, None] - i[None, :]) <= radius).astype(np.float32)


def _lrn(xp, a, x):
    window = band_matrix(x.shape[-1], a["radius"]).astype(x.dtype)
    return x * (a["bias"] + a["alpha"] * ((x * x) @ window)) ** -a["beta"]


register(OpDef("LOCAL_RESPONSE_NORMALIZATION", attrs={"radius": REQUIRED, "bias": 1.0, "alpha": 1.0, "beta": 0.5},
               infer=_float_same, numpy=lambda a, x: _lrn(np, a, x), jax=lambda a, x: _lrn(_jnp(), a, x),
               tflite=_tfl("LOCAL_RESPONSE_NORMALIZATION", "LocalResponseNormalizationOptions",
                           {"radius": "radius", "bias": "bias", "alpha": "alpha", "beta": "beta"})))


def local_response_normalization(x, radius: int = 5, bias: float = 1.0, alpha: float = 1.0, beta: float = 0.5,
                                 name: str | None = None) -> Tensor:
    """LOCAL_RESPONSE_NORMALIZATION: x * (bias + alpha * sum of x^2 over the channels within `radius`)^-beta,
    over the last axis (TFLite's formula: alpha is not divided by the window's size)."""
    attrs = {"radius": int(radius), "bias": float(bias), "alpha": float(alpha), "beta": float(beta)}
    return _apply("LOCAL_RESPONSE_NORMALIZATION", [as_tensor(x)], attrs, name=name)


def _grad_l2_normalize(node, dys):
    # y = x / |x|: dx = (dy - y * sum(dy * y)) / |x|, where |x| is above the floor (below it y = x / eps)
    x, y, dy = node.inputs[0], node.outputs[0], dys[0]
    norm = ops.sqrt(ops.reduce_sum(ops.mul(x, x), -1, keepdims=True))
    return [ops.div(ops.sub(dy, ops.mul(y, ops.reduce_sum(ops.mul(dy, y), -1, keepdims=True))), norm)]


def _grad_lrn(node, dys):
    # y = x s^-beta, s = bias + alpha W(x^2) with W symmetric: dx = dy s^-beta - 2 alpha beta x W(dy x s^(-beta-1))
    x, dy, a = node.inputs[0], dys[0], node.attrs
    if x.shape[-1] is None:
        raise ValueError(f'gradient of LOCAL_RESPONSE_NORMALIZATION "{node.name}": channels must be static')
    window = ops.constant(band_matrix(x.shape[-1], a["radius"]).astype(x.dtype), graph=x.graph)
    s = ops.add(ops.mul(ops.batch_matmul(ops.mul(x, x), window), a["alpha"]), a["bias"])
    scale = ops.pow_(s, -a["beta"])
    inner = ops.batch_matmul(ops.div(ops.mul(ops.mul(dy, x), scale), s), window)
    return [ops.sub(ops.mul(dy, scale), ops.mul(ops.mul(x, inner), 2.0 * a["alpha"] * a["beta"]))]


GRADIENTS = {
    "L2_NORMALIZATION": _grad_l2_normalize,
    "LOCAL_RESPONSE_NORMALIZATION": _grad_lrn,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
