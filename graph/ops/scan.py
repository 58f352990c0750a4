"""Along one axis: CUMSUM (running sums; its gradient is the running sum of dy the other way) and ARG_MAX /
ARG_MIN (integer results, no gradient).

Each op: its shape rule, numpy reference, JAX lowering and TFLite mapping, its builder, and its gradient rule."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import Tensor, canonical_dtype
from ..registry import REQUIRED, OpDef, register
from .core import _apply, _axis, _jnp, _same_as_first, _tfl, as_tensor


def _cumsum(xp, a, x):
    axis = a["axis"] % x.ndim
    if a["reverse"]:
        x = xp.flip(x, axis)
    y = xp.cumsum(x, axis=axis)
    if a["exclusive"]:  # each sum without its own element: shifted one place, a zero first
        y = y - x
    return xp.flip(y, axis) if a["reverse"] else y


register(OpDef("CUMSUM", attrs={"axis": REQUIRED, "exclusive": False, "reverse": False}, infer=_same_as_first,
               numpy=lambda a, x: _cumsum(np, a, x), jax=lambda a, x: _cumsum(_jnp(), a, x),
               tflite=_tfl("CUMSUM", "CumsumOptions", {"exclusive": "exclusive", "reverse": "reverse"},
                           ["axis"], notes="axis a scalar int32 input")))


def cumsum(x, axis: int, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Tensor:
    """CUMSUM: running sums of x along `axis`; `exclusive` leaves each element out of its own sum, `reverse`
    sums from the end."""
    x = as_tensor(x)
    return _apply("CUMSUM", [x], {"axis": _axis(axis, x.rank), "exclusive": bool(exclusive),
                                  "reverse": bool(reverse)}, name=name)


def _arg_infer(attrs, specs):
    shape, _dtype = specs[0]
    axis = _axis(attrs["axis"], len(shape))
    return [(shape[:axis] + shape[axis + 1:], attrs["output_type"])]


def _arg(fn):
    def apply(a, x):
        return fn(x, axis=a["axis"]).astype(a["output_type"])  # the first index at ties, as TFLite's
    return apply


for _name, _np_fn, _jax_name, _options in (("ARG_MAX", np.argmax, "argmax", "ArgMaxOptions"),
                                           ("ARG_MIN", np.argmin, "argmin", "ArgMinOptions")):
    register(OpDef(_name, attrs={"axis": REQUIRED, "output_type": "int32"}, infer=_arg_infer,
                   numpy=_arg(_np_fn), jax=lambda a, x, f=_jax_name: getattr(_jnp(), f)(x, axis=a["axis"]).astype(
                       a["output_type"]),
                   tflite=_tfl(_name, _options, {"output_type": "output_type"}, ["axis"],
                               notes="axis a 1-element int32 input")))


def arg_max(x, axis: int, output_type: Any = "int32", name: str | None = None) -> Tensor:
    """ARG_MAX: the index of the largest value along `axis` (the first at ties), as int32 or int64."""
    x = as_tensor(x)
    return _apply("ARG_MAX", [x], {"axis": _axis(axis, x.rank), "output_type": canonical_dtype(output_type)},
                  name=name)


def arg_min(x, axis: int, output_type: Any = "int32", name: str | None = None) -> Tensor:
    """ARG_MIN: the index of the smallest value along `axis` (the first at ties), as int32 or int64."""
    x = as_tensor(x)
    return _apply("ARG_MIN", [x], {"axis": _axis(axis, x.rank), "output_type": canonical_dtype(output_type)},
                  name=name)


def _grad_cumsum(node, dys):
    a = node.attrs
    return [cumsum(dys[0], a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])]


GRADIENTS = {
    "CUMSUM": _grad_cumsum,
}
"""This family's gradient rules by op name, `rule(node, output_grads) -> input_grads`; merged into
`rillet.graph.ops.GRADIENTS`."""
