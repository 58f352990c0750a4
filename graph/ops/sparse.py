"""Sparse weights: DENSIFY, a weight the file stores in TFLite's sparsity format (rows dense, columns
SPARSE_CSR: the nonzero values and where they sit), widened to its dense value when the model runs. In the graph
it is the dense value itself; the converter writes its input, which must be a constant, sparse. `to_graph`
expands a file's sparse weights back to dense constants (converter/dense_weights.py).

Forward only (a weight's storage; a trained weight is a dense variable). Each op: its shape rule, numpy
reference, JAX lowering and TFLite mapping, its builder."""

from __future__ import annotations

from typing import Any

from ..core import Tensor
from ..registry import OpDef, register
from .core import _apply, as_tensor


def _densify_infer(attrs, specs):
    shape, dtype = specs[0]
    if len(shape) != 2 or dtype not in ("float32", "int8"):
        raise ValueError(f"stores a float32 or int8 matrix sparse, got {dtype} {list(shape)}")
    return [specs[0]]


register(OpDef("DENSIFY", infer=_densify_infer, numpy=lambda a, w: w, jax=lambda a, w: w,
               tflite={"builtin": "DENSIFY", "options": None, "option_map": {}, "attr_inputs": [],
                       "notes": "the input constant written sparse (rows DENSE, columns SPARSE_CSR)", "order": None}))


def densify(weight: Any, name: str | None = None) -> Tensor:
    """DENSIFY: `weight` (a constant matrix, float32 or int8) stored sparse in the file, its zeros left out, and
    widened to this dense value at run time. Its value is the weight's."""
    return _apply("DENSIFY", [as_tensor(weight)], name=name)


GRADIENTS: dict = {}
"""This family's gradient rules: none (forward only: DENSIFY is in NO_GRADIENT)."""
