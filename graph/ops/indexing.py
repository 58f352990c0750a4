"""Gathers: GATHER and EMBEDDING_LOOKUP (rows of a table by index), whose gradient scatters dy back onto the
rows as a one-hot matmul.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor
from ..registry import OpDef, register
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


GRADIENTS = {
    "GATHER": _grad_gather,
    "EMBEDDING_LOOKUP": _grad_embedding_lookup,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
