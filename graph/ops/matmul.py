"""Matrix products: FULLY_CONNECTED, BATCH_MATMUL.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import OpDef, register
from . import _grad as grad
from .core import (
    _apply,
    _jnp,
    _operands,
    _tfl,
    as_tensor,
    broadcast_shapes,
)

# ------------------------------------------------------------------------------------------- matmuls


def _fc_infer(attrs, specs):
    (xs, xd), (ws, _wd) = specs[:2]
    if len(xs) != 2 or len(ws) != 2:
        raise ValueError(f"input must be [batch, in] and weights [out, in], got {xs} and {ws}")
    if None not in (xs[1], ws[1]) and xs[1] != ws[1]:
        raise ValueError(f"input has {xs[1]} features, weights expect {ws[1]}")
    if len(specs) == 3 and specs[2][0] != (ws[0],):
        raise ValueError(f"bias has shape {specs[2][0]}, expected ({ws[0]},)")
    return [((xs[0], ws[0]), xd)]


def _fc_np(a, x, w, b=None):
    y = x @ w.T
    return y if b is None else y + b


def _fc_jax(a, x, w, b=None):
    y = _jnp().matmul(x, w.T, precision="highest")
    return y if b is None else y + b


register(OpDef("FULLY_CONNECTED", infer=_fc_infer, numpy=_fc_np, jax=_fc_jax,
               tflite=_tfl("FULLY_CONNECTED", "FullyConnectedOptions",
                           notes="weights [out, in] (DEFAULT format), keep_num_dims false; bias optional (-1)")))


def fully_connected(x, weights, bias=None, name: str | None = None) -> Tensor:
    """x [batch, in] @ weights[out, in]^T + bias[out]."""
    inputs = _operands(x, weights) + ([as_tensor(bias)] if bias is not None else [])
    return _apply("FULLY_CONNECTED", inputs, name=name)


def _bmm_infer(attrs, specs):
    (xs, xd), (ys, yd) = specs
    if len(xs) < 2 or len(ys) < 2:
        raise ValueError(f"operands need rank >= 2, got {xs} and {ys}")
    if xd != yd:
        raise ValueError(f"operands have different dtypes {xd} and {yd}")
    m, kx = (xs[-1], xs[-2]) if attrs["adj_x"] else (xs[-2], xs[-1])
    ky, n = (ys[-1], ys[-2]) if attrs["adj_y"] else (ys[-2], ys[-1])
    if None not in (kx, ky) and kx != ky:
        raise ValueError(f"inner dimensions differ: {xs} and {ys}")
    return [(broadcast_shapes(xs[:-2], ys[:-2]) + (m, n), xd)]


def _bmm_np(a, x, y):
    if a["adj_x"]:
        x = np.swapaxes(x, -1, -2)
    if a["adj_y"]:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def _bmm_jax(a, x, y):
    jnp = _jnp()
    if a["adj_x"]:
        x = jnp.swapaxes(x, -1, -2)
    if a["adj_y"]:
        y = jnp.swapaxes(y, -1, -2)
    return jnp.matmul(x, y, precision="highest")


register(OpDef("BATCH_MATMUL", attrs={"adj_x": False, "adj_y": False}, infer=_bmm_infer, numpy=_bmm_np,
               jax=_bmm_jax, tflite=_tfl("BATCH_MATMUL", "BatchMatMulOptions",
                                         {"adj_x": "adj_x", "adj_y": "adj_y"})))


def batch_matmul(x, y, adj_x: bool = False, adj_y: bool = False, name: str | None = None) -> Tensor:
    """BATCH_MATMUL: x @ y over the last two axes, the leading ones broadcast; `adj_x` / `adj_y` transpose the
    last two axes of x / y first. ValueError when the inner dimensions differ."""
    return _apply("BATCH_MATMUL", _operands(x, y), {"adj_x": adj_x, "adj_y": adj_y}, name=name)


# ---------------------------------------------------------------------------------------- matmuls


def _grad_fully_connected(node, dys):
    x, w = node.inputs[:2]
    dy = dys[0]
    dx = ops.fully_connected(dy, ops.transpose(w, [1, 0]))                  # dy @ w
    dw = ops.fully_connected(ops.transpose(dy, [1, 0]), ops.transpose(x, [1, 0]))  # dy^T @ x
    grads = [dx, dw]
    if len(node.inputs) == 3:
        grads.append(ops.reduce_sum(dy, 0))
    return grads


def _grad_batch_matmul(node, dys):
    x, y = node.inputs
    dy = dys[0]
    bmm = ops.batch_matmul
    adj_x, adj_y = node.attrs["adj_x"], node.attrs["adj_y"]
    if not adj_x and not adj_y:
        dx, dyy = bmm(dy, y, adj_y=True), bmm(x, dy, adj_x=True)
    elif not adj_x and adj_y:
        dx, dyy = bmm(dy, y), bmm(dy, x, adj_x=True)
    elif adj_x and not adj_y:
        dx, dyy = bmm(y, dy, adj_y=True), bmm(x, dy)
    else:
        dx, dyy = bmm(y, dy, adj_x=True, adj_y=True), bmm(dy, x, adj_x=True, adj_y=True)
    return [grad.unbroadcast(dx, x), grad.unbroadcast(dyy, y)]


GRADIENTS = {
    "FULLY_CONNECTED": _grad_fully_connected,
    "BATCH_MATMUL": _grad_batch_matmul,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
