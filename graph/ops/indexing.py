"""Indexing: GATHER, EMBEDDING_LOOKUP and GATHER_ND (rows or elements of a table by index), whose gradients
scatter dy back onto the rows as a one-hot matmul; DYNAMIC_UPDATE_SLICE (a block written at run-time offsets);
ONE_HOT (no gradient: its result depends on integer indices).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import REQUIRED, OpDef, register
from .core import (
    _apply,
    _axis,
    _jnp,
    _tfl,
    as_tensor,
)

# --------------------------------------------------------------------------------------------- shapes


def _gather_infer(attrs, specs):
    (ps, pd), (ixs, ixd) = specs
    if not np.issubdtype(np.dtype(ixd), np.integer):
        raise ValueError(f"indices must be integers, got {ixd}")
    axis = _axis(attrs["axis"], len(ps))
    return [(ps[:axis] + ixs + ps[axis + 1:], pd)]


register(OpDef("GATHER", attrs={"axis": 0}, infer=_gather_infer,
               numpy=lambda a, p, i: np.take(p, i, axis=a["axis"]),
               jax=lambda a, p, i: _jnp().take(p, i, axis=a["axis"]),
               tflite=_tfl("GATHER", "GatherOptions", {"axis": "axis"}, notes="batch_dims 0")))


def gather(params, indices, axis: int = 0, name: str | None = None) -> Tensor:
    """GATHER: the slices of `params` along `axis` at the int32 `indices` (any shape; the result's shape is
    params' with that axis replaced by indices')."""
    params = as_tensor(params)
    indices = as_tensor(indices, dtype="int32", graph=params.graph)
    return _apply("GATHER", [params, indices], {"axis": _axis(axis, params.rank)}, name=name)


def _embedding_infer(attrs, specs):
    (ixs, ixd), (ps, pd) = specs
    if not np.issubdtype(np.dtype(ixd), np.integer) or len(ixs) != 1:
        raise ValueError(f"ids must be a 1-D integer tensor, got {ixd} {ixs}")
    return [(ixs + ps[1:], pd)]


register(OpDef("EMBEDDING_LOOKUP", infer=_embedding_infer, numpy=lambda a, i, p: np.take(p, i, axis=0),
               jax=lambda a, i, p: _jnp().take(p, i, axis=0), tflite=_tfl("EMBEDDING_LOOKUP")))


def embedding_lookup(ids, params, name: str | None = None) -> Tensor:
    """Rows of params [vocabulary, ...] by 1-D ids: GATHER on axis 0 with TFLite's own op, ids first."""
    params = as_tensor(params)
    return _apply("EMBEDDING_LOOKUP", [as_tensor(ids, dtype="int32", graph=params.graph), params], name=name)


def _grad_gather(node, dys):
    params, indices = node.inputs
    if node.attrs["axis"] != 0:
        raise ValueError(f'gradient of GATHER "{node.name}": only axis 0')
    return [_scatter_rows(params, indices, dys[0], node.name), None]


def _grad_embedding_lookup(node, dys):
    ids, params = node.inputs
    return [None, _scatter_rows(params, ids, dys[0], node.name)]


def _scatter_rows(params, indices, dy, name: str):
    """d params of a gather of rows: one_hot(indices)^T @ dy, a scatter-add as a matmul of builtins."""
    if None in params.shape:
        raise ValueError(f'gradient of "{name}": the table must have a static shape')
    n = params.shape[0]
    rest = int(np.prod(params.shape[1:]))
    hot = ops.one_hot(ops.reshape(indices, [-1]), n, dtype=params.dtype)   # [k, n]
    dparams = ops.batch_matmul(hot, ops.reshape(dy, [-1, rest]), adj_x=True)  # [n, rest]
    return ops.reshape(dparams, list(params.shape))


def _gather_nd_infer(attrs, specs):
    (ps, pd), (ixs, ixd) = specs
    if not np.issubdtype(np.dtype(ixd), np.integer) or not ixs or ixs[-1] is None or ixs[-1] > len(ps):
        raise ValueError(f"indices must be integers [..., q] with q <= rank {len(ps)}, got {ixd} {ixs}")
    return [(ixs[:-1] + ps[ixs[-1]:], pd)]


def _gather_nd(p, i):
    return p[tuple(i[..., k] for k in range(i.shape[-1]))]


register(OpDef("GATHER_ND", infer=_gather_nd_infer, numpy=lambda a, p, i: _gather_nd(p, i),
               jax=lambda a, p, i: _gather_nd(p, i), tflite=_tfl("GATHER_ND", "GatherNdOptions")))


def gather_nd(params, indices, name: str | None = None) -> Tensor:
    """GATHER_ND: the slices params[i0, ..., iq-1] for each index vector in the int32 `indices` [..., q]; the
    result is indices' shape without its last axis, then params' axes past q."""
    params = as_tensor(params)
    indices = as_tensor(indices, dtype="int32", graph=params.graph)
    return _apply("GATHER_ND", [params, indices], name=name)


def _one_hot_infer(attrs, specs):
    (ixs, ixd), (ons, ond), (offs, offd) = specs
    if not np.issubdtype(np.dtype(ixd), np.integer) or ond != offd or ons != () or offs != ():
        raise ValueError(f"expects integer indices and scalar on/off values of one dtype, got {specs}")
    axis = _axis(attrs["axis"], len(ixs) + 1)
    return [(ixs[:axis] + (attrs["depth"],) + ixs[axis:], ond)]


def _one_hot(xp, a, i, on, off):
    hot = i[..., None] == xp.arange(a["depth"])  # an index outside [0, depth) gives a row of off values
    return xp.moveaxis(xp.where(hot, on, off), -1, a["axis"])


register(OpDef("ONE_HOT", attrs={"depth": REQUIRED, "axis": -1}, infer=_one_hot_infer,
               numpy=lambda a, i, on, off: _one_hot(np, a, i, on, off),
               jax=lambda a, i, on, off: _one_hot(_jnp(), a, i, on, off),
               tflite=_tfl("ONE_HOT", "OneHotOptions", {"axis": "axis"}, ["depth"], order=[0, "depth", 1, 2],
                           notes="inputs (indices, depth, on_value, off_value)")))


def one_hot_builtin(indices, depth: int, on_value=1.0, off_value=0.0, axis: int = -1, dtype="float32",
                    name: str | None = None) -> Tensor:
    """ONE_HOT as TFLite's own op: `on_value` where the index equals the position along the new axis `axis`,
    else `off_value`. `one_hot` (comparisons, what the gradient rules use) needs no such op."""
    indices = as_tensor(indices, dtype="int32")
    on = as_tensor(np.asarray(on_value, dtype=dtype), graph=indices.graph)
    off = as_tensor(np.asarray(off_value, dtype=dtype), graph=indices.graph)
    return _apply("ONE_HOT", [indices, on, off], {"depth": int(depth), "axis": _axis(axis, indices.rank + 1)},
                  name=name)


def _dynamic_update_slice_infer(attrs, specs):
    (xs, xd), (us, ud), (ss, sd) = specs
    if xd != ud or len(xs) != len(us) or ss not in ((len(xs),), (None,)):
        raise ValueError(f"update {us} {ud} and start [{len(xs)}] must match operand {xs} {xd}, got {specs}")
    if any(u is not None and d is not None and u > d for u, d in zip(us, xs)):
        raise ValueError(f"update {us} does not fit in operand {xs}")
    return [(xs, xd)]


def _dynamic_update_slice(x, u, start):
    # the start clamped so that the update fits, as TFLite's (and XLA's) op does
    start = np.clip(np.asarray(start, dtype=np.int64), 0, np.array(x.shape) - np.array(u.shape))
    out = np.array(x, copy=True)
    out[tuple(slice(b, b + n) for b, n in zip(start, u.shape))] = u
    return out


register(OpDef("DYNAMIC_UPDATE_SLICE", infer=_dynamic_update_slice_infer,
               numpy=lambda a, x, u, s: _dynamic_update_slice(x, u, s),
               jax=lambda a, x, u, s: __import__("jax").lax.dynamic_update_slice(x, u, list(s)),
               tflite=_tfl("DYNAMIC_UPDATE_SLICE", "DynamicUpdateSliceOptions")))


def dynamic_update_slice(x, update, start, name: str | None = None) -> Tensor:
    """DYNAMIC_UPDATE_SLICE: x with the block `update` written at `start` (an int32 tensor of one offset per
    axis, clamped so that the block fits)."""
    x = as_tensor(x)
    update = as_tensor(update, dtype=x.dtype, graph=x.graph)
    return _apply("DYNAMIC_UPDATE_SLICE", [x, update, as_tensor(start, dtype="int32", graph=x.graph)], name=name)


def _grad_gather_nd(node, dys):
    params, indices = node.inputs
    if None in params.shape or indices.shape[-1] is None:
        raise ValueError(f'gradient of GATHER_ND "{node.name}": params must have a static shape')
    q = indices.shape[-1]
    strides = np.cumprod((params.shape[1:q] + (1,))[::-1])[::-1].astype(np.float32)
    # each index vector as one row of params viewed [prod(shape[:q]), rest]: float32, exact below 2^24 rows
    row = ops.reduce_sum(ops.mul(ops.cast(indices, "float32"), strides), -1)
    table = ops.reshape(params, [int(np.prod(params.shape[:q]))] + list(params.shape[q:]))
    return [ops.reshape(_scatter_rows(table, row, dys[0], node.name), list(params.shape)), None]


def _constant_start(node) -> tuple:
    start = node.inputs[2]
    if start.node.op != "CONST":
        raise ValueError(f'gradient of DYNAMIC_UPDATE_SLICE "{node.name}": the start must be a constant')
    x, u = node.inputs[:2]
    return tuple(int(v) for v in np.clip(start.node.attrs["value"], 0, np.array(x.shape) - np.array(u.shape)))


def _grad_dynamic_update_slice(node, dys):
    x, u = node.inputs[:2]
    if None in x.shape or None in u.shape:
        raise ValueError(f'gradient of DYNAMIC_UPDATE_SLICE "{node.name}": shapes must be static')
    start = _constant_start(node)
    dx = dynamic_update_slice(dys[0], ops.zeros_like(u), np.array(start, np.int32))
    return [dx, ops.slice_(dys[0], start, u.shape), None]


GRADIENTS = {
    "GATHER_ND": _grad_gather_nd,
    "DYNAMIC_UPDATE_SLICE": _grad_dynamic_update_slice,
    "GATHER": _grad_gather,
    "EMBEDDING_LOOKUP": _grad_embedding_lookup,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
