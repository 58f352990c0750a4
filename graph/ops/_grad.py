"""Helpers the gradient rules share: broadcasting back, dtype-matched constants, masks."""

from __future__ import annotations

import numpy as np

from .. import ops
from ..core import Tensor


def _dims(shape: tuple) -> list[int]:
    """A shape for RESHAPE: the dynamic dimension becomes -1."""
    return [-1 if d is None else d for d in shape]


def _const_like(value, t: Tensor) -> Tensor:
    return ops.constant(np.asarray(value, dtype=t.dtype), graph=t.graph)


def _float_mask(condition: Tensor, like: Tensor) -> Tensor:
    return ops.cast(condition, like.dtype)


def unbroadcast(g: Tensor, x: Tensor) -> Tensor:
    """Sum g over the axes along which x was broadcast, giving x's shape."""
    lead = g.rank - x.rank
    axes = list(range(lead)) + [lead + i for i, d in enumerate(x.shape) if d == 1 and g.shape[lead + i] != 1]
    if axes:
        g = ops.reduce_sum(g, axes)
    if g.shape != x.shape:
        g = ops.reshape(g, _dims(x.shape))
    return g


