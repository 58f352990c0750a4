"""Composites built from other ops' builders (no op of their own): one_hot, zeros_like.

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping (one `register`), its builder, and
its gradient rule (`_grad_*`, collected in GRADIENTS at the end)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..core import Tensor
from .core import (
    as_tensor,
)

# ------------------------------------------------------------------------------------------ composites


def one_hot(indices, depth: int, dtype: Any = "float32", name: str = "one_hot") -> Tensor:
    """[..., depth] one-hot rows from integer indices, as (i == k) = 1 - (i > k) - (k > i): builtins only.
    The comparisons are float32 ones (exact for indices below 2^24): every runtime has float GREATER."""
    indices = as_tensor(indices)
    with indices.graph.name_scope(indices.graph.unique_name(name)):
        column = ops.expand_dims(ops.cast(indices, "float32"), -1)
        ks = ops.constant(np.arange(depth, dtype=np.float32), graph=indices.graph)
        return 1.0 - ops.cast(ops.greater(column, ks), dtype) - ops.cast(ops.greater(ks, column), dtype)


def zeros_like(x) -> Tensor:
    """Zeros of x's shape and dtype (x * 0, so a dynamic shape follows x)."""
    x = as_tensor(x)
    return ops.mul(x, 0)

